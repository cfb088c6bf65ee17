/**
 * OpenTelemetry spans, collected with the SDK's in-memory exporter: the launch's span
 * (HTTP server attributes, the outcome), each platform call as its client child (HTTP
 * client attributes, errors and retries), each store call as a child, pre-warming as
 * traces of their own, and nothing secret in any name or attribute.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { context, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { TEST_KEY } from "../support/keys.js";
import { rosterOf, startStormStack, ticketOf, until, type StormStack } from "../storm/support.js";

const exporter = new InMemorySpanExporter();
beforeAll(() => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
});
afterAll(() => {
  trace.disable();
  context.disable();
});

let stack: StormStack | undefined;
afterEach(async () => {
  await stack?.close();
  stack = undefined;
  exporter.reset();
});

const spans = () => exporter.getFinishedSpans();
const idOf = (s: ReadableSpan) => s.spanContext().spanId;
const parentOf = (s: ReadableSpan) => s.parentSpanContext?.spanId;
const childrenOf = (parent: ReadableSpan) => spans().filter((s) => parentOf(s) === idOf(parent));
/** The launch span whose outcome is `outcome`. */
const launchSpans = (outcome?: string) => spans().filter((s) => s.name === "GET /launch/:examId" && (outcome === undefined || s.attributes["oral_assessments.launch.outcome"] === outcome));

describe("spans", () => {
  it("wrap a launch, its platform call and its store calls, with the HTTP attributes and no secret", async () => {
    stack = await startStormStack();
    const { examId } = await stack.seedExam();
    exporter.reset();

    const ok = await stack.as("s1", `/oral/launch/${examId}`);
    expect(ok.status).toBe(303);
    await until(() => launchSpans("redirected").length === 1);
    const [launch] = launchSpans("redirected");
    expect(launch!.kind).toBe(SpanKind.SERVER);
    expect(parentOf(launch!)).toBeUndefined();
    expect(launch!.attributes).toMatchObject({
      "http.request.method": "GET", "http.route": "/oral/launch/:examId", "http.response.status_code": 303,
      "oral_assessments.launch.outcome": "redirected", "oral_assessments.launch.served_by": "on_demand", "oral_assessments.launch.kind": "oral", "oral_assessments.launch.via": "link",
    });
    const children = childrenOf(launch!);
    const call = children.find((s) => s.kind === SpanKind.CLIENT);
    expect(call?.name).toBe("POST /students/sign-in-token");
    const api = new URL(stack.emulator.url);
    expect(call!.attributes).toEqual({
      "http.request.method": "POST", "url.template": "/students/sign-in-token", "server.address": api.hostname, "server.port": Number(api.port),
      "http.response.status_code": 200,
    });
    expect(call!.spanContext().traceId).toBe(launch!.spanContext().traceId);
    const store = children.filter((s) => s.name.startsWith("oral_assessments.store "));
    expect(store.length).toBeGreaterThan(0);
    for (const s of store) expect(s.attributes["db.operation.name"]).toBe(s.name.slice("oral_assessments.store ".length));

    // A failed call: the client span is an error with the status as its type; the launch span says 502.
    stack.emulator.fault({ type: "status", status: 500, count: 1 });
    expect((await stack.as("s2", `/oral/launch/${examId}`)).status).toBe(502);
    await until(() => launchSpans("platform_failed").length === 1);
    const failedLaunch = launchSpans("platform_failed")[0]!;
    expect(failedLaunch.attributes["http.response.status_code"]).toBe(502);
    expect(failedLaunch.status.code).toBe(SpanStatusCode.ERROR);
    const failedCall = childrenOf(failedLaunch).find((s) => s.kind === SpanKind.CLIENT)!;
    expect(failedCall.status.code).toBe(SpanStatusCode.ERROR);
    expect(failedCall.attributes).toMatchObject({ "http.response.status_code": 500, "error.type": "500" });

    // A 429 waited out: one call span, resent once, ending with the 200.
    stack.emulator.fault({ type: "status", status: 429, retryAfter: 1, count: 1 });
    const third = await stack.as("s3", `/oral/launch/${examId}`);
    expect(third.status).toBe(303);
    await until(() => launchSpans("redirected").length === 2);
    const retried = childrenOf(launchSpans("redirected").find((s) => s !== launch)!).filter((s) => s.kind === SpanKind.CLIENT);
    expect(retried).toHaveLength(1);
    expect(retried[0]!.attributes).toMatchObject({ "http.request.resend_count": 1, "http.response.status_code": 200 });
    expect(retried[0]!.status.code).not.toBe(SpanStatusCode.ERROR);

    // An instructor call (not a launch): a client span named by its template, no id in it.
    await stack.as("ines", `/oral/courses`);
    await until(() => spans().some((s) => s.name === "GET /courses"));

    const tickets = [ok, third].map((r) => ticketOf(r.headers.get("location") ?? undefined));
    expect(tickets.every((t) => t.length > 0)).toBe(true);
    sweep([TEST_KEY, ...tickets, "@school.test", "u-s1", "u-s2", "No1", examId]);
  });

  it("makes each pre-warm call a trace of its own, not a child of whatever planned it", async () => {
    stack = await startStormStack();
    const { examId } = await stack.seedExam();
    const roster = ["ada", "bob"].map(rosterOf);
    // Planned inside a span of the app's (as a request traced by an HTTP instrumentation would be).
    const planner = trace.getTracer("test");
    await planner.startActiveSpan("app request", async (span) => {
      await stack!.router.prepare(examId, { startAt: new Date(Date.now() + 60_000).toISOString(), roster });
      span.end();
    });
    await until(() => spans().filter((s) => s.name === "POST /students/sign-in-token").length === 2);
    const calls = spans().filter((s) => s.name === "POST /students/sign-in-token");
    for (const s of calls) expect(parentOf(s)).toBeUndefined();
    expect(new Set(calls.map((s) => s.spanContext().traceId)).size).toBe(2);
    sweep([TEST_KEY, "@school.test", "u-ada", "Lovelace"]);
  });
});

/** No span name, attribute, event or status message holds any of `secrets`. */
function sweep(secrets: string[]): void {
  const all = spans();
  expect(all.length).toBeGreaterThan(0);
  const text = JSON.stringify(all.map((s) => ({ name: s.name, attributes: s.attributes, events: s.events, status: s.status, links: s.links })));
  for (const secret of secrets) expect(text, `a span holds ${secret.slice(0, 12)}`).not.toContain(secret);
}
