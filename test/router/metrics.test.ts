/**
 * Prometheus metrics on the app's own prom-client registry (`metrics: { registry }`):
 * scraped after a small storm, with numbers that match what the emulator received;
 * the gauges read at scrape time (waiting launches, the key's budget, pre-warming);
 * two routers on one registry; the organization label on demand; nothing secret in the
 * scraped text.
 */
import { afterEach, describe, expect, it } from "vitest";
import { Registry } from "prom-client";
import { oralAssessments } from "../../src/index.js";
import { TEST_KEY } from "../support/keys.js";
import { rosterOf, startStormStack, ticketOf, until, type StormStack } from "../storm/support.js";
import { requireOptional } from "../../src/core/optional-module.js";

let stack: StormStack | undefined;
afterEach(async () => {
  await stack?.close();
  stack = undefined;
});

type Sample = { labels: Record<string, string | number>; value: number; metricName?: string };

async function samples(registry: Registry, name: string): Promise<Sample[]> {
  const metric = (await registry.getMetricsAsJSON()).find((m) => m.name === name);
  if (!metric) throw new Error(`no metric ${name}`);
  return metric.values as Sample[];
}

/** The sum of a metric's samples whose labels include `match`. */
async function total(registry: Registry, name: string, match: Record<string, string> = {}, sampleName?: string): Promise<number> {
  return (await samples(registry, name))
    .filter((s) => (sampleName === undefined || s.metricName === sampleName) && Object.entries(match).every(([k, v]) => s.labels[k] === v))
    .reduce((n, s) => n + s.value, 0);
}

const students = (n: number, from = 0) => Array.from({ length: n }, (_, i) => `s${from + i}`);

describe("metrics: { registry }", () => {
  it("counts a storm's launches and platform requests as the emulator saw them, and holds no secret", async () => {
    const registry = new Registry();
    stack = await startStormStack({
      router: { metrics: { registry }, canLaunch: (req) => (req.user as { username?: string } | undefined)?.username !== "bob", waitingPageAfterMs: 2_000 },
    });
    const { examId } = await stack.seedExam();

    // The storm: 12 students at once, one refused, one whose call the platform fails,
    // one 429 the client waits out (launch priority), then one student's double click.
    stack.emulator.fault({ type: "status", status: 500, count: 1, bodyContains: "s20@" });
    stack.emulator.fault({ type: "status", status: 429, retryAfter: 1, count: 1, bodyContains: "s21@" });
    const answers = await Promise.all([...students(12), "bob", "s20", "s21"].map((user) => stack!.as(user, `/oral/launch/${examId}`)));
    expect(answers.map((r) => r.status).sort()).toEqual([...Array(13).fill(303), 403, 502].sort());
    const double = await Promise.all([stack.as("s30", `/oral/launch/${examId}`), stack.as("s30", `/oral/launch/${examId}`)]);
    expect(double.map((r) => r.status)).toEqual([303, 303]);

    // Launches, by outcome and how they were served.
    expect(await total(registry, "oral_assessments_launches_total", { outcome: "redirected", served_by: "on_demand", via: "link", kind: "oral" })).toBe(14);
    expect(await total(registry, "oral_assessments_launches_total", { outcome: "redirected", served_by: "coalesced" })).toBe(1);
    expect(await total(registry, "oral_assessments_launches_total", { outcome: "forbidden", served_by: "none" })).toBe(1);
    expect(await total(registry, "oral_assessments_launches_total", { outcome: "platform_failed" })).toBe(1);
    expect(await total(registry, "oral_assessments_launches_total")).toBe(17);
    expect(await total(registry, "oral_assessments_launch_duration_seconds", {}, "oral_assessments_launch_duration_seconds_count")).toBe(17);

    // Platform requests: every request the emulator received (the seeding included), by endpoint and status.
    const seen = stack.emulator.requests;
    expect(seen.every((r) => r.status > 0)).toBe(true);
    const byStatus = (path: string) => {
      const counts: Record<string, number> = {};
      for (const r of seen.filter((q) => q.path === path)) counts[r.status] = (counts[r.status] ?? 0) + 1;
      return counts;
    };
    const signIns = byStatus("/students/sign-in-token");
    expect(signIns).toEqual({ 200: 14, 429: 1, 500: 1 }); // the double click made one call
    for (const [status, n] of Object.entries(signIns)) {
      expect(await total(registry, "oral_assessments_platform_requests_total", { method: "POST", endpoint: "/students/sign-in-token", status })).toBe(n);
    }
    expect(await total(registry, "oral_assessments_platform_requests_total", { method: "POST", endpoint: "/courses/{courseId}/classes", status: "201" })).toBe(1);
    expect(await total(registry, "oral_assessments_platform_requests_total")).toBe(seen.length);
    expect(await total(registry, "oral_assessments_platform_rate_limited_total")).toBe(1);

    // The key's budget: what it sent in its window, against its limit.
    expect(await total(registry, "oral_assessments_rate_budget_used")).toBe(seen.length);
    expect(await total(registry, "oral_assessments_rate_budget_limit")).toBe(600);
    expect(await total(registry, "oral_assessments_launches_waiting")).toBe(0);

    // Nothing secret: no key, no sign-in token, no student e-mail or id.
    const text = await registry.metrics();
    const tickets = answers.map((r) => r.headers.get("location")).filter((l) => l !== null).map((l) => ticketOf(l));
    expect(tickets.length).toBe(13);
    for (const secret of [TEST_KEY, ...tickets, "@school.test", "u-s1", "No11"]) expect(text).not.toContain(secret);
    for (const line of text.split("\n").filter((l) => l.startsWith("oral_assessments_"))) expect(line).toMatch(/^oral_assessments_[a-z_]+(\{.*\})? [0-9.e+-]+$/);
  });

  it("shows waiting launches and pre-warming behind schedule while they last", async () => {
    const registry = new Registry();
    // The two timeouts and three 503s below are five sign-in failures: they open the breaker,
    // for 15 s by default, which would hold pre-warming back long after the faults are gone.
    stack = await startStormStack({ client: { timeoutMs: 1_500, maxRetries: 0 }, router: { metrics: { registry }, waitingPageAfterMs: 200, circuitBreaker: { openMs: 500 } } });
    const { examId } = await stack.seedExam();

    stack.emulator.fault({ type: "hang", count: 2, pathPrefix: "/students/sign-in-token" });
    const waiting = await Promise.all(["s1", "s2"].map((u) => stack!.as(u, `/oral/launch/${examId}`)));
    expect(waiting.map((r) => r.status)).toEqual([202, 202]);
    expect(await total(registry, "oral_assessments_launches_waiting")).toBe(2);
    expect(await total(registry, "oral_assessments_launches_total", { outcome: "waiting" })).toBe(2);
    await until(async () => (await total(registry, "oral_assessments_launches_waiting")) === 0);
    expect(await total(registry, "oral_assessments_platform_requests_total", { status: "timeout" })).toBe(2);

    // A plan starting in a minute whose calls the platform fails for now: late.
    stack.emulator.fault({ type: "status", status: 503, count: 1_000, pathPrefix: "/students/sign-in-token" });
    const roster = ["ada", "bob", "s5"].map(rosterOf);
    const startAt = new Date(Date.now() + 60_000).toISOString();
    expect((await stack.as("ines", `/oral/oral-assessments/${examId}/prepare`, { method: "POST", body: { startAt, roster } })).status).toBe(202);
    await until(async () => (await total(registry, "oral_assessments_platform_requests_total", { status: "503" })) >= 3);
    expect(await total(registry, "oral_assessments_preparation_late_tokens")).toBe(3);
    expect(await total(registry, "oral_assessments_prepared_tokens", { state: "pending" })).toBe(3);
    stack.emulator.clearFaults();
    await until(async () => (await total(registry, "oral_assessments_prepared_tokens", { state: "ready" })) === 3);
    expect(await total(registry, "oral_assessments_preparation_late_tokens")).toBe(0);
    expect(await total(registry, "oral_assessments_prepared_tokens", { state: "pending" })).toBe(0);

    const ada = await stack.as("ada", `/oral/launch/${examId}`);
    expect(ada.status).toBe(303);
    expect(await total(registry, "oral_assessments_launches_total", { outcome: "redirected", served_by: "prepared" })).toBe(1);
    expect(await total(registry, "oral_assessments_prepared_tokens", { state: "handed_out" })).toBe(1);
  }, 60_000);

  it("lets two routers share a registry, with the organization label only when asked, and stops counting on close", async () => {
    const registry = new Registry();
    stack = await startStormStack({ router: { metrics: { registry, organizationLabel: false } } });
    // A second router on the same registry and client: no "already registered", one series.
    const second = oralAssessments({ platform: stack.platform, examHost: stack.emulator.examHost, canLaunch: "any-signed-in-user", metrics: { registry } });
    expect(() => oralAssessments({ platform: stack!.platform, canLaunch: "any-signed-in-user", metrics: { registry, organizationLabel: true } })).toThrow(/organizationLabel/);
    const { examId } = await stack.seedExam();
    expect((await stack.as("s1", `/oral/launch/${examId}`)).status).toBe(303);
    // The client both routers share: each request counted once.
    expect(await total(registry, "oral_assessments_platform_requests_total")).toBe(stack.emulator.requests.length);
    expect(await total(registry, "oral_assessments_rate_budget_limit")).toBe(1_200); // two scopes, one key each reported
    await second.close();
    expect(await total(registry, "oral_assessments_rate_budget_limit")).toBe(600);
    expect(await total(registry, "oral_assessments_platform_requests_total")).toBe(stack.emulator.requests.length);
    expect((await stack.as("s2", `/oral/launch/${examId}`)).status).toBe(303);
    expect(await total(registry, "oral_assessments_platform_requests_total")).toBe(stack.emulator.requests.length);

    const labelled = new Registry();
    const third = oralAssessments({ platform: stack.platform, examHost: stack.emulator.examHost, canLaunch: "any-signed-in-user", metrics: { registry: labelled, organizationLabel: true } });
    expect((await labelled.metrics())).toMatch(/oral_assessments_rate_budget_limit\{organization="default"\} 600/);
    expect((await registry.metrics())).not.toContain("organization=");
    await third.close();
  });

  it("refuses a registry that is not one, and names prom-client when it is missing", () => {
    expect(() => oralAssessments({ platform: undefined as never, canLaunch: "any-signed-in-user", metrics: { registry: {} as never } }))
      .toThrow(/metrics\.registry: does not implement prom-client's Registry \(missing registerMetric, getSingleMetric, metrics\)/);
    const registry = new Registry();
    expect(() => oralAssessments({ platform: undefined as never, canLaunch: "any-signed-in-user", metrics: { registry, organizationLabel: "yes" as never } }))
      .toThrow(/metrics\.organizationLabel: must be true or false\. Fix: Leave it out for false/);
    expect(() => oralAssessments({ platform: undefined as never, canLaunch: "any-signed-in-user", metrics: null as never })).toThrow(/metrics: must be an object \{ registry, organizationLabel \}/);
    expect(requireOptional("prom-client")).toBeDefined();
    expect(requireOptional("prom-client-that-is-not-installed")).toBeUndefined();
  });
});
