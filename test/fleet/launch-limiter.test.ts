/**
 * The launch limiter's arithmetic on a fake clock (the in-process limiter with an injected
 * clock): failed calls take from the bucket, the backoff grows as min(base·2^(n−1), max)
 * and resets on a token, and a failure streak is forgotten a longest backoff after it
 * ended. The Redis limiter runs the same formulas in Lua (test/fleet/contracts/).
 */
import { describe, expect, it } from "vitest";
import { DEFAULT_LAUNCH_LIMIT, inProcessLaunchLimiter } from "../../src/fleet/launch-limiter.js";

function limiter(overrides: Partial<typeof DEFAULT_LAUNCH_LIMIT> = {}) {
  let now = 5_000_000;
  return { limiter: inProcessLaunchLimiter({ ...DEFAULT_LAUNCH_LIMIT, ...overrides }, () => now), advance: (ms: number) => { now += ms; } };
}

describe("the launch limiter's failure backoff (fake clock, defaults)", () => {
  it("grows 2 s, 4 s, 8 s, … up to 60 s with failures in a row, each shown with the last failure", async () => {
    // A bucket too large to matter, so the waits are the backoff's alone.
    const { limiter: l, advance } = limiter({ burst: 100 });
    const waits: number[] = [];
    for (let n = 1; n <= 8; n++) {
      const d = await l.recordFailure("exam", "ada", `failure ${n}`);
      expect(d.lastFailure).toBe(`failure ${n}`);
      waits.push(d.retryAfterMs);
      // Past both the backoff and the bucket's wait, the next call is allowed.
      advance(d.retryAfterMs);
      expect((await l.check("exam", "ada")).allowed).toBe(true);
    }
    expect(waits).toEqual([2_000, 4_000, 8_000, 16_000, 32_000, 60_000, 60_000, 60_000]);
  });

  it("failed calls take from the bucket: after the default burst of 3 it waits longer than the backoff", async () => {
    const { limiter: l, advance } = limiter();
    const waits: number[] = [];
    for (let n = 1; n <= 3; n++) {
      const d = await l.recordFailure("exam", "ada", "f");
      waits.push(d.retryAfterMs);
      advance(d.retryAfterMs);
    }
    expect(waits.slice(0, 2)).toEqual([2_000, 4_000]);
    // 3 taken in 6 s: the bucket owes almost a whole refill, far past the 8 s backoff.
    expect(waits[2]).toBeGreaterThan(50_000);
    expect((await l.check("exam", "ada")).remaining).toBe(1);
  });

  it("says when the next call is allowed: the backoff or the bucket, whichever is later", async () => {
    const { limiter: l, advance } = limiter();
    await l.recordFailure("exam", "ada", "f");
    advance(1_500);
    expect(await l.check("exam", "ada")).toEqual({ allowed: false, retryAfterMs: 500, remaining: 2, lastFailure: "f" });
    advance(500);
    expect(await l.check("exam", "ada")).toMatchObject({ allowed: true, lastFailure: "f" });
  });

  it("an issued token resets the streak: the next failure waits 2 s again", async () => {
    const { limiter: l, advance } = limiter();
    await l.recordFailure("exam", "ada", "f1");
    advance(2_000);
    await l.recordFailure("exam", "ada", "f2");
    advance(4_000);
    const issued = await l.record("exam", "ada");
    expect(issued.lastFailure).toBeUndefined();
    advance(120_000); // the bucket refills
    expect((await l.recordFailure("exam", "ada", "f3")).retryAfterMs).toBe(2_000);
  });

  it("forgets a streak a longest backoff after it ended", async () => {
    const { limiter: l, advance } = limiter();
    await l.recordFailure("exam", "ada", "f1");
    advance(2_000 + 60_000);
    expect((await l.check("exam", "ada")).lastFailure).toBeUndefined();
    expect((await l.recordFailure("exam", "ada", "f2")).retryAfterMs).toBe(2_000);
  });
});
