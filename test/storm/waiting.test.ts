/**
 * The waiting page: a launch that cannot be served soon answers at once with a page
 * that refreshes itself and redirects when the token is ready; its wait id is useless to
 * anyone but its student; a double click costs one token; the wait is bounded.
 */
import { afterEach, describe, expect, it } from "vitest";
import { metaRefresh } from "../support/html-page.js";
import { browse, startStormStack, ticketOf, type StormStack } from "./support.js";

let stack: StormStack | undefined;
afterEach(async () => {
  await stack?.close();
  stack = undefined;
});

/** One sign-in per window (1.5 s): the first launch takes the window, the next must wait. */
async function slowStack(router: NonNullable<Parameters<typeof startStormStack>[0]>["router"] = {}, windowMs = 1_500) {
  stack = await startStormStack({
    client: { rateLimitPerMinute: 1, rateWindowMs: windowMs },
    router: { waitingPageAfterMs: 200, ...router },
  });
  const exam = await stack.seedDirect();
  // Through a waiting page if the machine is slow: the first launch takes the window either way.
  const first = await browse(stack, "s0", `/oral/launch/${exam.examId}`);
  expect(first.status).toBe(303);
  return { stack, exam };
}

describe("the waiting page", () => {
  it("answers at once with a self-refreshing page, then redirects the student when the token is ready", async () => {
    const { stack, exam } = await slowStack();
    const res = await stack.as("ada", `/oral/launch/${exam.examId}`);
    expect(res.status).toBe(202);
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.headers.get("location")).toBeNull();
    const html = await res.text();
    expect(html).toMatch(/Preparing your exam — (you are next|\d+ students? ahead of you)/);
    expect(html).not.toContain("signin_");
    const refresh = metaRefresh(html);
    expect(refresh?.url).toMatch(new RegExp(`^/oral/launch/${exam.examId}\\?wait=[A-Za-z0-9_-]{24}$`));

    // A browser follows the refresh (held open until ready, or another waiting page).
    const walk = await browse(stack, "ada", refresh!.url);
    expect(walk.status).toBe(303);
    expect(new URL(walk.location!).pathname).toBe(`/exam/${exam.examId}`);
    expect(await (await fetch(walk.location!)).text()).toContain("Signed in as Ada Lovelace");
    expect(stack.signIns()).toHaveLength(2);
    // Answered: the wait id is spent, and a reload starts a fresh launch.
    const reload = await stack.as("ada", refresh!.url);
    expect(reload.status).toBe(303);
    expect(reload.headers.get("location")).toBe(`/oral/launch/${exam.examId}`);
  });

  it("refuses user A's wait id to user B, who never sees A's token, and still serves A", async () => {
    const { stack, exam } = await slowStack();
    const page = await (await stack.as("ada", `/oral/launch/${exam.examId}`)).text();
    const waitUrl = metaRefresh(page)!.url;

    const stolen = await stack.as("bob", waitUrl);
    expect(stolen.status).toBe(403);
    expect(stolen.headers.get("location")).toBeNull();
    const stolenBody = await stolen.text();
    expect(stolenBody).not.toContain("signin_");
    expect(stolenBody).toMatch(/another account/);
    expect(await (await stack.as(undefined, waitUrl)).text()).not.toContain("signin_");

    const walk = await browse(stack, "ada", waitUrl);
    expect(walk.status).toBe(303);
    expect(await (await fetch(walk.location!)).text()).toContain("Signed in as Ada Lovelace");
    // B's attempts cost nothing: s0's token and Ada's.
    expect(stack.signIns()).toHaveLength(2);
  });

  it("costs one token for a double click: both requests get the same redirect", async () => {
    // Held up to 10 s: the slow answer below comes long before any waiting page.
    stack = await startStormStack({ router: { waitingPageAfterMs: 10_000 } });
    const { examId } = await stack.seedExam();
    // A slow answer: the second click lands while the first's call is in flight, however busy the machine.
    stack.emulator.setLatency({ fixedMs: 1_500 });
    const before = stack.signIns().length;
    const [a, b] = await Promise.all([stack.as("ada", `/oral/launch/${examId}`), stack.as("ada", `/oral/launch/${examId}`)]);
    expect([a.status, b.status]).toEqual([303, 303]);
    expect(ticketOf(a.headers.get("location")!)).toMatch(/^signin_/);
    expect(a.headers.get("location")).toBe(b.headers.get("location"));
    expect(stack.signIns().length - before).toBe(1);
    stack.emulator.clearFaults();

    // Shared only while in flight: a launch after the answer gets a fresh token.
    const later = await stack.as("ada", `/oral/launch/${examId}`);
    expect(ticketOf(later.headers.get("location")!)).not.toBe(ticketOf(a.headers.get("location")!));
    expect(stack.signIns().length - before).toBe(2);
  });

  it("shares one in-flight token request between two tabs on the waiting page", async () => {
    const { stack, exam } = await slowStack();
    const tab1 = metaRefresh(await (await stack.as("ada", `/oral/launch/${exam.examId}`)).text())!.url;
    const tab2 = metaRefresh(await (await stack.as("ada", `/oral/launch/${exam.examId}`)).text())!.url;
    expect(tab2).toBe(tab1);
    const walk = await browse(stack, "ada", tab1);
    expect(walk.status).toBe(303);
    expect(stack.signIns()).toHaveLength(2);
  });

  it("shows a retry page once launchWaitMs has passed, and takes the call out of the queue", async () => {
    // s0's launch holds the only slot for 20 s: far past the 1 s bound.
    const { stack, exam } = await slowStack({ launchWaitMs: 1_000 }, 20_000);
    const walk = await browse(stack, "ada", `/oral/launch/${exam.examId}`);
    expect(walk.status).toBe(503);
    expect(walk.waitingPages).toBeGreaterThan(0);
    expect(walk.body).toMatch(/could not be prepared in time/);
    expect(walk.body).toContain(`href="/oral/launch/${exam.examId}"`);
    expect(stack.platform.rateStats().queued.launch).toBe(0);
    expect(stack.signIns()).toHaveLength(1);
  });
});
