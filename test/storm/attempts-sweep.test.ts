/**
 * The storm path the audit found untested: a launch attempt nobody asks about any more
 * (the student closed the tab) is aborted by `LaunchAttempts`' sweep after `abandonMs`,
 * which takes its call out of the rate budget's queue so the students who stayed go
 * sooner. A real rate budget (one call per minute, so calls queue) and the attempts'
 * injectable clock; the sweep itself runs on its own (unref'd) interval.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createRateBudget } from "../../src/platform/rate-budget.js";
import { LaunchAttempts } from "../../src/router/launch/attempts.js";
import { until } from "./support.js";

let attempts: LaunchAttempts | undefined;
afterEach(() => { attempts?.close(); attempts = undefined; });

describe("LaunchAttempts' sweep", () => {
  it("aborts an abandoned attempt, removes its call from the budget queue, and keeps the attempts still asked about", async () => {
    const budget = createRateBudget({ limit: 1, windowMs: 60_000 });
    let clock = 1_000_000;
    const abandonMs = 1_000;
    attempts = new LaunchAttempts({ abandonMs, now: () => clock });
    const outcomes: Record<string, string> = {};
    // An attempt's call: wait for the budget (launch priority), then "get" the token.
    const call = (who: string) => (signal: AbortSignal) => budget.acquire("launch", signal).then(
      (release) => { release(); outcomes[who] = "token"; return `token-${who}`; },
      (error: unknown) => { outcomes[who] = `aborted: ${(error as Error).message}`; throw error; },
    );

    attempts.join("exam", "first", call("first")); // takes the window's one call
    await until(() => outcomes.first === "token");
    attempts.join("exam", "left", call("left")); // queues: the student then closes the tab
    attempts.join("exam", "stayed", call("stayed")); // queues, and keeps asking
    await until(() => budget.stats().queued.launch === 2);
    expect(attempts.pendingCount).toBe(2);

    // Past abandonMs: the student who stayed asks again (a waiting page's refresh), the other does not.
    clock += abandonMs + 1;
    expect(attempts.join("exam", "stayed", call("stayed")).shared).toBe(true);
    await until(() => outcomes.left !== undefined);

    expect(outcomes.left).toBe("aborted: the student stopped waiting");
    expect(outcomes.stayed).toBeUndefined();
    expect(budget.stats().queued.launch).toBe(1);
    expect(attempts.pendingCount).toBe(1);
    // The abandoned attempt is forgotten: the student's next launch starts afresh.
    const again = attempts.join("exam", "left", call("left-again"));
    expect(again.shared).toBe(false);
    expect(budget.stats().queued.launch).toBeGreaterThanOrEqual(1);
  });
});
