/**
 * The platform's reset time is read against its own `Date` header, not our clock: a
 * platform whose clock is a minute behind ours sends Resets that look past to us. Read on
 * our clock, the budget would drop the Remaining they come with and send into a full
 * window (one 429 per call too many). The emulator's clock is skewed with its control
 * endpoint, as a test driving another process would.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { Emulator } from "../../src/emulator/index.js";
import { resetAtOf } from "../../src/platform/transport.js";
import { clientFor, emulatorWith } from "./support.js";

let emulator: Emulator | undefined;
afterEach(async () => { await emulator?.close(); emulator = undefined; });

const skew = async (e: Emulator, skewMs: number) => {
  const res = await fetch(`${e.url}/__emulator/clock`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ skewMs }) });
  expect(res.status).toBe(200);
};

describe("the platform's Reset, read against its Date header", () => {
  it("reads a Reset as a time from the platform's now, put on our clock", () => {
    const now = 1_700_000_000_500;
    // The platform's clock is 60 s behind: its Date and its Reset (4 s on) both lag.
    expect(resetAtOf(1_699_999_944, "Tue, 14 Nov 2023 22:12:20 GMT", now)).toBe(now + 4000);
    expect(resetAtOf(1_700_000_004, undefined, now)).toBe(1_700_000_004_000);
    expect(resetAtOf(1_700_000_004, "not a date", now)).toBe(1_700_000_004_000);
    expect(resetAtOf(undefined, "Tue, 14 Nov 2023 22:12:20 GMT", now)).toBeUndefined();
  });

  for (const skewMs of [-60_000, 60_000]) {
    it(`keeps within the platform's window when its clock is ${skewMs / 1000} s off ours`, async () => {
      emulator = await emulatorWith({ rateLimits: { dev: 6, windowMs: 3000 } });
      await skew(emulator, skewMs);
      const other = clientFor(emulator.url, { maxRetries: 0 });
      const ours = clientFor(emulator.url, { rateLimitPerMinute: 6, rateWindowMs: 3000, maxRetries: 3, deadlineMs: 20_000 });
      // Another process used half the key's window; our first call learns the rest.
      for (let i = 0; i < 3; i++) await other.courses.list();
      const first = await ours.courses.list();
      expect(first.meta).toBeDefined();
      expect(ours.rateStats().serverRemaining).toBe(2);
      await Promise.all(Array.from({ length: 5 }, () => ours.courses.list()));
      expect(emulator.requests.filter((r) => r.status === 429)).toEqual([]);
      await Promise.all([other.close(), ours.close()]);
    });
  }
});
