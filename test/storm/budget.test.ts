/**
 * Launch storms against the rate budget: the platform never sees more than the budget in
 * any window (and so never answers 429), every student still gets their own working
 * token through the waiting page, and launches go before instructor traffic.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createRateBudget, type RateBudget } from "../../src/platform/rate-budget.js";
import { browse, maxInAnyWindow, startStormStack, ticketOf, until, type StormStack } from "./support.js";

let stack: StormStack | undefined;
afterEach(async () => {
  await stack?.close();
  stack = undefined;
});

describe("a launch storm", () => {
  it("sends at most the budget in any window, meets no 429, and signs every student in with their own token", async () => {
    const windowMs = 1_000;
    stack = await startStormStack({
      emulator: { rateLimits: { dev: 10, windowMs } },
      client: { rateLimitPerMinute: 10, rateWindowMs: windowMs },
      router: { waitingPageAfterMs: 300 },
    });
    const { examId } = await stack.seedExam();
    await until(() => stack!.platform.rateStats().sentInWindow === 0);
    const before = stack.emulator.requests.length;

    const students = Array.from({ length: 30 }, (_, i) => `s${i}`);
    const walks = await Promise.all(students.map((s) => browse(stack!, s, `/oral/launch/${examId}`)));

    expect(walks.map((w) => w.status)).toEqual(students.map(() => 303));
    // 30 students at 10 per window cannot all be served at once: most saw the waiting page.
    expect(walks.filter((w) => w.waitingPages > 0).length).toBeGreaterThan(10);

    const sent = stack.emulator.requests.slice(before);
    expect(sent.every((r) => r.path === "/students/sign-in-token")).toBe(true);
    expect(sent).toHaveLength(30);
    expect(sent.filter((r) => r.status === 429)).toHaveLength(0);
    expect(maxInAnyWindow(sent.map((r) => r.at), windowMs)).toBeLessThanOrEqual(10);

    // Each token was asked for its own student, and signs exactly that student in.
    const tokens = walks.map((w) => ticketOf(w.location));
    expect(new Set(tokens).size).toBe(30);
    const pages = await Promise.all(walks.map(async (w) => (await fetch(w.location!)).text()));
    pages.forEach((page, i) => expect(page).toContain(`Signed in as Student No${i}`));
  });

  it("sends launches queued behind instructor calls first (no share kept for instructor calls)", async () => {
    stack = await startStormStack({ client: { rateLimitPerMinute: 2, rateWindowMs: 600, normalShare: 0 } });
    const { courseId, examId } = await stack.seedExam();
    await until(() => stack!.platform.rateStats().sentInWindow === 0);
    const before = stack.emulator.requests.length;

    // Four instructor reads: two fill the window, two wait in the normal queue.
    const reads = Array.from({ length: 4 }, () => stack!.as("ines", `/oral/courses/${courseId}`));
    await until(() => stack!.platform.rateStats().queued.normal === 2);
    const launches = ["ada", "bob"].map((s) => browse(stack!, s, `/oral/launch/${examId}`));
    await until(() => stack!.platform.rateStats().queued.launch === 2);

    const results = await Promise.all([...reads, ...launches]);
    expect(results.slice(0, 4).map((r) => (r as Response).status)).toEqual([200, 200, 200, 200]);
    expect(results.slice(4).map((w) => (w as { status: number }).status)).toEqual([303, 303]);

    const order = stack.emulator.requests.slice(before).map((r) => (r.path.startsWith("/courses") ? "instructor" : "launch"));
    expect(order).toEqual(["instructor", "instructor", "launch", "launch", "instructor", "instructor"]);
  });
});

/** Whether `acquire` is granted now (true) rather than queued (false). */
async function grantedNow(budget: RateBudget): Promise<boolean> {
  const controller = new AbortController();
  const granted = budget.acquire("launch", controller.signal).then((release) => { release(); return true; }, () => false);
  const result = await Promise.race([granted, new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 20))]);
  controller.abort(new Error("test over"));
  return result;
}

describe("the rate budget between windows (clock under test control)", () => {
  it("reopens as our own requests leave the window, without waiting for the platform's whole-second Reset", async () => {
    let now = 1_000_000;
    const budget = createRateBudget({ limit: 2, windowMs: 1_000, now: () => now });
    const releases = [await budget.acquire("launch"), await budget.acquire("launch")];
    // The platform's answer: nothing left until the Reset, rounded up to a whole second.
    budget.observe({ limit: 2, remaining: 0, resetAt: now + 1_900 });
    for (const release of releases) release();
    expect(await grantedNow(budget)).toBe(false);
    now += 1_000; // our two requests left our window, so they left the platform's
    expect(budget.stats().sentInWindow).toBe(0);
    expect(await grantedNow(budget)).toBe(true);
  });

  it("still waits for the Reset when the platform's window holds requests that are not ours", async () => {
    let now = 2_000_000;
    const budget = createRateBudget({ limit: 2, windowMs: 1_000, now: () => now });
    budget.observe({ limit: 2, remaining: 0, resetAt: now + 1_900 }); // another instance used the key
    now += 1_000;
    expect(await grantedNow(budget)).toBe(false);
    now += 900;
    expect(await grantedNow(budget)).toBe(true);
  });
});
