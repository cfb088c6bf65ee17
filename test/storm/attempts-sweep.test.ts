/**
 * The storm path the audit found untested: a launch attempt nobody asks about any more
 * (the student closed the tab) is aborted by `LaunchAttempts`' sweep after `abandonMs`,
 * which takes its call out of the rate budget's queue so the students who stayed go
 * sooner. A real rate budget (one call per minute, so calls queue), the in-process attempt
 * store, and a short `abandonMs` (the sweep runs on its own unref'd interval).
 */
import { afterEach, describe, expect, it } from "vitest";
import { inProcessLaunchAttempts, type AttemptOutcome } from "../../src/fleet/launch-attempts.js";
import { createRateBudget } from "../../src/platform/rate-budget.js";
import { LaunchAttempts, type AttemptHandle } from "../../src/router/launch/attempts.js";
import { until } from "./support.js";

let attempts: LaunchAttempts | undefined;
afterEach(() => { attempts?.close(); attempts = undefined; });

describe("LaunchAttempts' sweep", () => {
  it("aborts an abandoned attempt, removes its call from the budget queue, and keeps the attempts still asked about", async () => {
    const budget = createRateBudget({ limit: 1, windowMs: 60_000 });
    const abandonMs = 400;
    const store = inProcessLaunchAttempts({ leaseMs: 10_000, outcomeTtlMs: 60_000 });
    attempts = new LaunchAttempts(store, { abandonMs, leaseMs: 10_000 });
    const outcomes: Record<string, string> = {};
    // An attempt's call: wait for the budget (launch priority), then "get" the token. A
    // failure is an outcome, never a rejection.
    const call = (who: string) => (signal: AbortSignal): Promise<AttemptOutcome> => budget.acquire("launch", signal).then(
      (release) => { release(); outcomes[who] = "token"; return { kind: "token", token: `token-${who}` }; },
      (error: unknown) => { outcomes[who] = `aborted: ${(error as Error).message}`; return { kind: "failed", status: 499, detail: "abandoned" }; },
    );

    await attempts.join("exam", "first", call("first")); // takes the window's one call
    await until(() => outcomes.first === "token");
    await attempts.join("exam", "left", call("left")); // queues: the student then closes the tab
    const stayed: AttemptHandle = (await attempts.join("exam", "stayed", call("stayed"))).handle; // queues, and keeps asking
    await until(() => budget.stats().queued.launch === 2);
    expect(attempts.pendingCount).toBe(2);

    // The student who stayed keeps asking (a waiting page's refresh every ~100 ms); the other does not.
    const started = Date.now();
    while (outcomes.left === undefined && Date.now() - started < 10 * abandonMs) {
      await attempts.view(stayed);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }

    expect(outcomes.left).toBe("aborted: the student stopped waiting");
    expect(outcomes.stayed).toBeUndefined();
    expect(budget.stats().queued.launch).toBe(1);
    expect(attempts.pendingCount).toBe(1);
  });
});
