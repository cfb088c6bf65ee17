/**
 * The sign-in endpoint's circuit breaker, over HTTP against the emulator (in process;
 * the shared one is in test/fleet/breaker-fleet.test.ts): the platform failing for many
 * students opens it, launches then get a 503 "not answering" page with `Retry-After`
 * and no call, prepared tokens are still handed out, pre-warming waits, and after
 * `openMs` one probe closes it or opens it again. A full class is not an outage.
 */
import { afterEach, describe, expect, it } from "vitest";
import { rosterOf, startStormStack, until, type StormStack } from "./support.js";

let stack: StormStack | undefined;
afterEach(async () => {
  await stack?.close();
  stack = undefined;
});

const SIGN_IN = "/students/sign-in-token";
const students = (from: number, count: number) => Array.from({ length: count }, (_, i) => `s${from + i}`);

describe("the sign-in circuit breaker", () => {
  it("opens when the platform fails for 5 students: the next launch gets a 503 'not answering' page with Retry-After and no call; a probe after openMs closes it", async () => {
    stack = await startStormStack({ router: { circuitBreaker: { openMs: 3_000 } } });
    const exam = await stack.seedDirect();
    const launch = (user: string) => stack!.as(user, `/oral/launch/${exam.examId}`);
    stack.emulator.fault({ type: "status", status: 500, count: 10_000, pathPrefix: SIGN_IN });
    for (const user of students(0, 5)) expect((await launch(user)).status).toBe(502);
    expect(stack.logger.lines.some((l) => l.level === "warn" && l.obj.event === "circuit_opened")).toBe(true);

    const calls = stack.signIns().length;
    const refused = await launch("s5");
    expect(refused.status).toBe(503);
    expect(refused.headers.get("cache-control")).toBe("no-store");
    const retryAfter = Number(refused.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    const html = await refused.text();
    expect(html).toContain("The exam service is not answering");
    expect(html).toMatch(new RegExp(`try again in ${retryAfter} seconds?`));
    // Ten more students while it is open: still no call.
    for (const user of students(6, 10)) expect((await launch(user)).status).toBe(503);
    expect(stack.signIns().length).toBe(calls);

    // The platform recovers; once openMs has passed, the next launch is the probe and closes it.
    stack.emulator.clearFaults();
    let probe = await launch("s20");
    while (probe.status === 503) {
      await new Promise((r) => setTimeout(r, 100));
      probe = await launch("s20");
    }
    expect(probe.status).toBe(303);
    expect(stack.signIns().length).toBe(calls + 1);
    expect(stack.logger.lines.some((l) => l.obj.event === "circuit_closed")).toBe(true);
    expect((await launch("s21")).status).toBe(303);
  });

  it("a failed probe opens it again", async () => {
    stack = await startStormStack({ router: { circuitBreaker: { openMs: 3_000 } } });
    const exam = await stack.seedDirect();
    const launch = (user: string) => stack!.as(user, `/oral/launch/${exam.examId}`);
    stack.emulator.fault({ type: "reset", count: 10_000, pathPrefix: SIGN_IN });
    for (const user of students(0, 5)) expect((await launch(user)).status).toBe(502);
    expect((await launch("s5")).status).toBe(503);
    const calls = stack.signIns().length;
    // Once openMs has passed, one launch probes (its call fails: 502), and the breaker is open again.
    let probe = await launch("s6");
    while (probe.status === 503) {
      await new Promise((r) => setTimeout(r, 100));
      probe = await launch("s6");
    }
    expect(probe.status).toBe(502);
    expect(stack.signIns().length).toBe(calls + 1);
    expect(stack.logger.lines.filter((l) => l.obj.event === "circuit_opened")).toHaveLength(2);
    const again = await launch("s7");
    expect(again.status).toBe(503);
    expect(Number(again.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(stack.signIns().length).toBe(calls + 1);
  });

  it("while open, a prepared token is still handed out, and pre-warming makes no call", async () => {
    stack = await startStormStack({ router: { circuitBreaker: { openMs: 60_000 } } });
    const exam = await stack.seedExam(); // through the instructor API: prepare needs the exam in the store
    const inAMinute = () => new Date(Date.now() + 60_000).toISOString();
    await stack.router.prepare(exam.examId, { startAt: inAMinute(), roster: [rosterOf("ada")] });
    await until(() => stack!.router.preparation(exam.examId)?.ready === 1);

    stack.emulator.fault({ type: "status", status: 502, count: 10_000, pathPrefix: SIGN_IN });
    for (const user of students(0, 5)) expect((await stack.as(user, `/oral/launch/${exam.examId}`)).status).toBe(502);
    const calls = stack.signIns().length;
    const ada = await stack.as("ada", `/oral/launch/${exam.examId}`);
    expect(ada.status).toBe(303);
    expect(new URL(ada.headers.get("location")!).searchParams.get("__clerk_ticket")).toMatch(/^signin_/);

    // A new plan: its first call is refused by the breaker, and the preparer waits.
    await stack.router.prepare(exam.examId, { startAt: inAMinute(), roster: students(30, 10).map(rosterOf) });
    await until(() => stack!.logger.lines.some((l) => l.obj.event === "prepare_paused"));
    expect(stack.signIns().length).toBe(calls);
    expect(stack.router.preparation(exam.examId)).toMatchObject({ failed: 0 });
  });

  it("a full class (409) for many students is not an outage: it stays closed", async () => {
    stack = await startStormStack({ emulator: { classCapacity: 1 } });
    const full = await stack.seedDirect();
    const other = await stack.seedDirect();
    expect((await stack.as("s0", `/oral/launch/${full.examId}`)).status).toBe(303);
    for (const user of students(1, 10)) expect((await stack.as(user, `/oral/launch/${full.examId}`)).status).toBe(409);
    // Ten refusals would have opened it had they counted (5 failures, all of the calls).
    expect((await stack.as("s20", `/oral/launch/${other.examId}`)).status).toBe(303);
    expect(stack.logger.lines.some((l) => l.obj.event === "circuit_opened")).toBe(false);
  });

  it("is validated into the one ConfigurationError, and may not be set beside a fleet", async () => {
    const { oralAssessments } = await import("../../src/index.js");
    const { inProcessFleet } = await import("../../src/fleet/fleet.js");
    let message = "";
    try {
      oralAssessments({ canLaunch: "any-signed-in-user", platform: {} as never, circuitBreaker: { minFailures: 0, failureRatio: 2, openMs: 1.5 } });
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toMatch(/circuitBreaker\.minFailures/);
    expect(message).toMatch(/circuitBreaker\.failureRatio/);
    expect(message).toMatch(/circuitBreaker\.openMs/);
    expect(() => oralAssessments({ canLaunch: "any-signed-in-user", platform: {} as never, fleet: inProcessFleet(), circuitBreaker: {} })).toThrow(/redisFleet\(\{ circuitBreaker \}\)/);
  });
});
