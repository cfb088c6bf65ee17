/**
 * An attempt Redis lost (its keys gone, as after a restart without persistence) while its
 * sign-in call still runs on the owning instance: the owner puts the attempt back under its
 * wait id (from what it holds) at its next renewal, so the student's waiting page finds it
 * again and a return to the launch URL joins it, instead of making a second sign-in call;
 * the student gets the token. On the shared Redis, under a prefix of its own.
 */
import { afterEach, describe, expect, it } from "vitest";
import { fleetReady, redisFleet } from "../../src/fleet/index.js";
import type { AttemptOutcome } from "../../src/fleet/launch-attempts.js";
import { LaunchAttempts } from "../../src/router/launch/attempts.js";
import { dropPrefix, randomPrefix, REDIS_URL, redisOrSkip, SECRET } from "../support/redis.js";
import { silentLogger } from "../../src/core/logger.js";

const available = await redisOrSkip("the lost-attempt test");
const LEASE_MS = 1500;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.runIf(available)("an attempt Redis lost while its call runs", () => {
  const cleanups: (() => Promise<unknown> | unknown)[] = [];
  afterEach(async () => { for (const c of cleanups.splice(0).reverse()) await c(); });

  it("is put back under its wait id and joined by the student's return to the launch URL: one sign-in call, and the token", async () => {
    const prefix = randomPrefix("lost");
    const fleet = redisFleet({ url: REDIS_URL, secret: SECRET, prefix, attemptLeaseMs: LEASE_MS, commandTimeoutMs: 500, logger: silentLogger });
    cleanups.push(() => fleet.close(), () => dropPrefix(prefix));
    expect(await fleetReady(fleet)).toBe(true);
    const attempts = new LaunchAttempts(fleet.attempts, { abandonMs: 60_000, leaseMs: LEASE_MS });
    cleanups.push(() => attempts.close());

    let calls = 0;
    let answer: ((outcome: AttemptOutcome) => void) | undefined;
    const call = () => { calls += 1; return new Promise<AttemptOutcome>((resolve) => { answer = resolve; }); };
    const first = await attempts.join("exam-1", "student-1", call);
    expect(first.shared).toBe(false);
    expect(calls).toBe(1);

    await dropPrefix(prefix); // Redis lost the attempt
    expect((await attempts.view(first.handle)).state).toBe("unknown");
    await sleep(2 * LEASE_MS); // the owner renews every third of the lease, and finds it lost

    // The owner put it back under its wait id: the waiting page's refresh finds it again,
    // and a return to the launch URL (a new tab) joins it.
    expect(await attempts.view(first.handle)).toEqual({ state: "running", leaseLapsed: false });
    const again = await attempts.join("exam-1", "student-1", call);
    expect(again).toEqual({ handle: first.handle, shared: true });
    expect(calls).toBe(1);

    answer!({ kind: "token", token: "signin_after_loss" });
    expect(await attempts.wait(again.handle, 10_000, () => () => {})).toBe("settled");
    expect(await attempts.claim(again.handle)).toEqual({ kind: "token", token: "signin_after_loss" });
    expect(calls).toBe(1);
  }, 60_000);
});
