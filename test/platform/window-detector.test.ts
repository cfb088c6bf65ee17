/**
 * WindowDetector on its own (pure: the caller passes the time). Only a "fresh" response
 * (Remaining back at limit − 1) says how far one whole window reaches; a busy long
 * window, whose reset is always near, must never look short.
 */
import { describe, expect, it } from "vitest";
import { WindowDetector } from "../../src/platform/window-detector.js";

describe("WindowDetector", () => {
  it("adopts a clearly shorter window from fresh responses, the smallest reading winning", () => {
    const d = new WindowDetector(60_000);
    expect(d.windowMs).toBe(60_000);
    d.observe({ limit: 20, remaining: 19, resetAt: 10_000 + 1800 }, 10_000);
    expect(d.windowMs).toBe(1800);
    d.observe({ limit: 20, remaining: 19, resetAt: 20_000 + 1100 }, 20_000);
    expect(d.windowMs).toBe(1100);
  });

  it("ignores a busy long window: a near reset with little remaining says nothing", () => {
    const d = new WindowDetector(60_000);
    for (let i = 0; i < 50; i++) d.observe({ limit: 20, remaining: i % 3, resetAt: i * 1000 + 500 }, i * 1000);
    expect(d.windowMs).toBe(60_000);
  });

  it("keeps the configured window when fresh readings match it, and follows a platform whose window grew back", () => {
    const d = new WindowDetector(60_000);
    d.observe({ limit: 20, remaining: 19, resetAt: 61_000 }, 1000);
    expect(d.windowMs).toBe(60_000);
    d.observe({ limit: 20, remaining: 19, resetAt: 100_000 + 1000 }, 100_000);
    expect(d.windowMs).toBe(1000);
    for (let i = 1; i <= 5; i++) d.observe({ limit: 20, remaining: 19, resetAt: 200_000 * i + 60_000 }, 200_000 * i);
    expect(d.windowMs).toBe(60_000);
  });

  it("never goes below one second, and ignores incomplete or past headers", () => {
    const d = new WindowDetector(60_000);
    d.observe({ limit: 20, remaining: 19, resetAt: 1_000_200 }, 1_000_000);
    expect(d.windowMs).toBe(1000);
    const e = new WindowDetector(60_000);
    e.observe({ remaining: 19, resetAt: 2000 }, 1000);
    e.observe({ limit: 20, remaining: 19, resetAt: 500 }, 1000);
    expect(e.windowMs).toBe(60_000);
  });
});
