/**
 * Launch paths of exam-day storms that only the public API and HTTP can reach: a browser
 * that gives up while held, a wait id used on another exam, the immediate waiting page, a
 * platform answer without a token, a `loginUrl` with a query, a custom `student`, and
 * `router.close()` with attempts still queued. (The abandoned-attempt sweep is internal
 * to the launch code and is not reachable this way.)
 */
import { afterEach, describe, expect, it } from "vitest";
import { metaRefresh } from "../support/html-page.js";
import { browse, startStormStack, until, type StormStack } from "./support.js";

let stack: StormStack | undefined;
afterEach(async () => {
  await stack?.close();
  stack = undefined;
});

/** One sign-in per window: the first launch takes it, the next must wait. */
async function slowStack(router: NonNullable<Parameters<typeof startStormStack>[0]>["router"] = {}, windowMs = 1_500) {
  stack = await startStormStack({ client: { rateLimitPerMinute: 1, rateWindowMs: windowMs }, router: { waitingPageAfterMs: 200, ...router } });
  const exam = await stack.seedDirect();
  // Through a waiting page if the machine is slow: the first launch takes the window either way.
  expect((await browse(stack, "s0", `/oral/launch/${exam.examId}`)).status).toBe(303);
  return { stack, exam };
}

describe("storm paths over HTTP", () => {
  it("keeps the token of a browser that disconnected while held (499 logged) for its next request", async () => {
    // A 3 s window: seconds for the browser to give up while the launch is still held.
    const { stack, exam } = await slowStack({ waitingPageAfterMs: 10_000 }, 3_000);
    const abort = new AbortController();
    const held = fetch(new URL(`/oral/launch/${exam.examId}`, stack.app.url), { headers: { "x-test-user": "ada" }, redirect: "manual", signal: abort.signal });
    // Held: the window is taken by s0; the browser gives up once Ada's call is queued for it.
    await until(() => stack.platform.rateStats().queued.launch === 1);
    abort.abort();
    await expect(held).rejects.toThrow();
    await until(() => stack.logger.lines.some((l) => l.obj.outcome === "client_gone"));
    expect(stack.logger.lines.find((l) => l.obj.outcome === "client_gone")?.obj).toMatchObject({ status: 499 });
    // The token is fetched once the window allows, and kept for Ada: no second sign-in.
    await until(() => stack.signIns().length === 2);
    const back = await browse(stack, "ada", `/oral/launch/${exam.examId}`);
    expect(back.status).toBe(303);
    expect(await (await fetch(back.location!)).text()).toContain("Signed in as Ada Lovelace");
    expect(stack.signIns()).toHaveLength(2);
  });

  it("refuses a wait id on another exam with the 403 page, even for its own student", async () => {
    const { stack, exam } = await slowStack();
    const other = await stack.seedDirect();
    const page = await (await stack.as("ada", `/oral/launch/${exam.examId}`)).text();
    const waitId = new URL(metaRefresh(page)!.url, "http://x").searchParams.get("wait");
    const res = await stack.as("ada", `/oral/launch/${other.examId}?wait=${waitId}`);
    expect(res.status).toBe(403);
    expect(res.headers.get("location")).toBeNull();
    expect(await res.text()).not.toContain("signin_");
  });

  it("answers with the waiting page at once when the estimate exceeds waitingPageAfterMs, without holding for it", async () => {
    // A 60 s window: Ada's estimate is about a minute, far past the 5 s waitingPageAfterMs.
    const { stack, exam } = await slowStack({ waitingPageAfterMs: 5_000 }, 60_000);
    const started = Date.now();
    const res = await stack.as("ada", `/oral/launch/${exam.examId}`);
    expect(res.status).toBe(202);
    // Holding for waitingPageAfterMs first would take 5 s; the bound is wide for a busy machine.
    expect(Date.now() - started).toBeLessThan(2_500);
  });

  it("answers a 502 page when the platform's 200 carries no token, and logs no token", async () => {
    stack = await startStormStack();
    const exam = await stack.seedDirect();
    stack.emulator.fault({ type: "status", status: 200, pathPrefix: "/students" });
    const res = await stack.as("ada", `/oral/launch/${exam.examId}`);
    expect(res.status).toBe(502);
    expect(res.headers.get("content-type")).toMatch(/text\/html/);
    expect(res.headers.get("location")).toBeNull();
  });

  it("appends returnTo with & to a loginUrl that already has a query", async () => {
    stack = await startStormStack({ router: { loginUrl: "/login?next=exam" } });
    const exam = await stack.seedDirect();
    const res = await stack.as(undefined, `/oral/launch/${exam.examId}`);
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe(`/login?next=exam&returnTo=${encodeURIComponent(`/oral/launch/${exam.examId}`)}`);
  });

  it("signs in the student the custom `student` option maps the user to", async () => {
    stack = await startStormStack({
      router: { student: (req) => ({ email: "mapped@school.test", firstName: "Mapped", lastName: "Person", orgInternalId: `m-${(req.user as { id: string }).id}` }) },
    });
    const exam = await stack.seedDirect();
    const res = await stack.as("ada", `/oral/launch/${exam.examId}`);
    expect(res.status).toBe(303);
    expect(stack.signIns().at(-1)?.body).toMatchObject({ email: "mapped@school.test", firstName: "Mapped", lastName: "Person", orgInternalId: expect.stringMatching(/^m-/) });
    expect(await (await fetch(res.headers.get("location")!)).text()).toContain("Signed in as Mapped Person");
  });
  it("aborts pending attempts on router.close(): a queued student's token is never requested", async () => {
    const { stack, exam } = await slowStack();
    const res = await stack.as("ada", `/oral/launch/${exam.examId}`);
    expect(res.status).toBe(202); // queued behind s0's window
    await stack.router.close();
    // Without close() the queue would fetch it anyway (see the disconnect test above).
    // Past the moment the window would have let Ada's call go (1.5 s after s0's).
    await new Promise((r) => setTimeout(r, 2_500));
    expect(stack.signIns()).toHaveLength(1);
  });
});
