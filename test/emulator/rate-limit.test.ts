import { startTestEmulator } from "../support/emulator.js";
import { afterEach, describe, expect, it } from "vitest";
import { type Emulator } from "../../src/emulator/index.js";
import { RateLimiter } from "../../src/emulator/rate-window.js";
import { call } from "./helpers.js";

let emu: Emulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

const start = async (rateLimits: { dev?: number; prod?: number; windowMs?: number }) =>
  (emu = await startTestEmulator({ rateLimits }));

/** Sleeps until the wall clock reads `at` (ms since the epoch): the emulator's window runs on the same clock. */
const sleepUntil = (at: number) => new Promise((r) => setTimeout(r, Math.max(0, at - Date.now())));

describe("rate limits", () => {
  it("sends X-RateLimit-Limit/Remaining/Reset on every authenticated answer, errors included", async () => {
    const e = await start({ dev: 5 });
    const before = Math.floor(Date.now() / 1000);
    const first = await call(e, "GET", "/courses");
    expect(first.headers.get("x-ratelimit-limit")).toBe("5");
    expect(first.headers.get("x-ratelimit-remaining")).toBe("4");
    const reset = Number(first.headers.get("x-ratelimit-reset"));
    expect(reset).toBeGreaterThanOrEqual(before + 60);
    expect(reset).toBeLessThanOrEqual(before + 62);
    const notFound = await call(e, "GET", "/courses/nope");
    expect(notFound.status).toBe(404);
    expect(notFound.headers.get("x-ratelimit-remaining")).toBe("3");
  });

  it("answers 429 rate_limited with Retry-After once the window is spent, and 429s do not count", async () => {
    const e = await start({ dev: 5, windowMs: 1500 });
    const firstSentAt = Date.now();
    for (let i = 0; i < 5; i++) expect((await call(e, "GET", "/courses")).status).toBe(200);
    const lastCountedBy = Date.now();
    const refused = await call(e, "GET", "/courses");
    const elapsed = Date.now() - firstSentAt;
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe("rate_limited");
    // ceil(time until the first call leaves, ≤ 1.5 s), at least 1: 2 unless this machine took over half a second.
    const retryAfter = Number(refused.headers.get("retry-after"));
    expect(retryAfter).toBeLessThanOrEqual(2);
    expect(retryAfter).toBeGreaterThanOrEqual(Math.max(1, Math.ceil((1500 - elapsed) / 1000)));
    expect(refused.headers.get("x-ratelimit-remaining")).toBe("0");
    expect(refused.headers.get("x-ratelimit-limit")).toBe("5");
    // More refused requests do not push the window out: after it passes, all 5 slots are back.
    for (let i = 0; i < 3; i++) expect((await call(e, "GET", "/courses")).status).toBe(429);
    // Once the last counted call is a window old (the refused ones count for nothing):
    await sleepUntil(lastCountedBy + 1500);
    const again = await call(e, "GET", "/courses");
    expect(again.status).toBe(200);
    expect(again.headers.get("x-ratelimit-remaining")).toBe("4");
  });

  it("slides: a slot frees when the oldest request leaves the window, not at a fixed boundary", async () => {
    // Calls 1.5 s apart in a 3 s window: each "not yet" below has 1.5 s to spare; each "now" waits from a time taken after the call.
    const windowMs = 3_000;
    const gapMs = 1_500;
    const e = await start({ dev: 2, windowMs });
    const firstSentAt = Date.now();
    expect((await call(e, "GET", "/courses")).status).toBe(200);
    const firstCountedBy = Date.now();
    await sleepUntil(firstCountedBy + gapMs);
    expect((await call(e, "GET", "/courses")).status).toBe(200);
    expect((await call(e, "GET", "/courses")).status).toBe(429);
    expect(Date.now() - firstSentAt).toBeLessThan(windowMs); // so the refusal was within the first call's window
    await sleepUntil(firstCountedBy + windowMs); // the first left, the second has not
    expect((await call(e, "GET", "/courses")).status).toBe(200);
    expect((await call(e, "GET", "/courses")).status).toBe(429);
    expect(Date.now() - firstCountedBy).toBeLessThan(windowMs + gapMs); // so the refusal was within the second call's window
  });

  it("counts per key: dev and prod keys have separate windows and limits", async () => {
    const e = await start({ dev: 1, prod: 3 });
    expect((await call(e, "GET", "/courses")).status).toBe(200);
    expect((await call(e, "GET", "/courses")).status).toBe(429);
    const prod = await call(e, "GET", "/courses", undefined, { env: "prod" });
    expect(prod.status).toBe(200);
    expect(prod.headers.get("x-ratelimit-limit")).toBe("3");
  });

  it("defaults to the vendor's limits: dev 60, prod 600 per minute", async () => {
    const e = (emu = await startTestEmulator());
    expect((await call(e, "GET", "/courses")).headers.get("x-ratelimit-limit")).toBe("60");
    expect((await call(e, "GET", "/courses", undefined, { env: "prod" })).headers.get("x-ratelimit-limit")).toBe("600");
  });

  it("setRateLimits changes the limit at run time", async () => {
    const e = await start({ dev: 1 });
    expect((await call(e, "GET", "/courses")).status).toBe(200);
    expect((await call(e, "GET", "/courses")).status).toBe(429);
    e.setRateLimits({ dev: 3 });
    const res = await call(e, "GET", "/courses");
    expect(res.status).toBe(200);
    expect(res.headers.get("x-ratelimit-limit")).toBe("3");
    expect(() => e.setRateLimits({ dev: -1 })).toThrow(RangeError);
  });

  it("counts exactly under concurrency: 1 000 parallel-batched requests against a limit of 1 000", async () => {
    const e = await start({ dev: 1000 });
    let ok = 0;
    for (let batch = 0; batch < 10; batch++) {
      const results = await Promise.all(Array.from({ length: 100 }, () => call(e, "GET", "/courses")));
      ok += results.filter((r) => r.status === 200).length;
    }
    expect(ok).toBe(1000);
    expect((await call(e, "GET", "/courses")).status).toBe(429);
  });

  it("decides in O(1) per request: a window holding 10,000 requests decides as fast as one holding 10", () => {
    // Same number of decisions, windows 1,000× fuller: O(n) per decision would be ~1,000× slower.
    // The fastest of five runs each: a loaded machine only ever slows a run down.
    const fastest = (limit: number) => {
      const runs = Array.from({ length: 5 }, () => run(limit));
      return { ms: Math.min(...runs.map((r) => r.ms)), allowed: runs[0]!.allowed };
    };
    const run = (limit: number) => {
      const limiter = new RateLimiter(60_000);
      const step = 60_000 / limit; // the window stays full of `limit` requests
      let allowed = 0;
      for (let i = 0; i < 20 * limit; i++) limiter.take("warm", limit, i * step); // JIT warm-up, other key
      const started = performance.now();
      for (let i = 0; i < 100_000; i++) if (limiter.take("key", limit, i * (step / 2)).allowed) allowed++;
      return { ms: performance.now() - started, allowed };
    };
    const small = fastest(10);
    const large = fastest(10_000);
    // Half of the requests fit (one every step/2 against a limit of one per step).
    expect(small.allowed).toBeGreaterThan(45_000);
    expect(large.allowed).toBeGreaterThan(45_000);
    expect(large.ms).toBeLessThan(Math.max(small.ms, 5) * 5);
  });
});
