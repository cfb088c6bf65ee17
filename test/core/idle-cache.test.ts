/** The per-organization cache: bounded, least recently used out first, idle entries out, on an injected clock. */
import { describe, expect, it } from "vitest";
import { IdleCache } from "../../src/core/idle-cache.js";

describe("IdleCache", () => {
  it("keeps a busy entry past idleMs (sweep, get and peek), and lets it go once it is not busy", () => {
    let now = 0;
    const evicted: string[] = [];
    const busy = new Set(["P"]);
    const cache = new IdleCache<string, string>({ max: 10, idleMs: 1_000, now: () => now, onEvict: (v) => evicted.push(v), busy: (v) => busy.has(v) });
    cache.get("plan", () => "P");
    cache.get("idle", () => "I");
    now = 5_000;
    cache.sweep();
    expect(evicted).toEqual(["I"]);
    expect(cache.peek("plan")).toBe("P");
    expect(cache.get("plan", () => "P2")).toBe("P");
    busy.delete("P");
    now = 6_001;
    cache.sweep();
    expect(evicted).toEqual(["I", "P"]);
    expect(cache.size).toBe(0);
  });

  it("keeps a used entry, drops one idle past idleMs (on the sweep and on the next get), and tells onEvict", () => {
    let now = 0;
    const evicted: string[] = [];
    const cache = new IdleCache<string, string>({ max: 10, idleMs: 1_000, now: () => now, onEvict: (v) => evicted.push(v) });
    let made = 0;
    const make = (v: string) => () => { made += 1; return v; };
    expect(cache.get("a", make("A1"))).toBe("A1");
    expect(cache.get("b", make("B1"))).toBe("B1");
    now = 900;
    expect(cache.get("a", make("A2"))).toBe("A1"); // used: its idle time starts again
    now = 1_500;
    cache.sweep();
    expect(evicted).toEqual(["B1"]);
    expect(cache.peek("a")).toBe("A1");
    now = 1_900;
    expect(cache.get("a", make("A3"))).toBe("A1"); // 1 000 ms since its use at 900: not idle past 1 000
    now = 2_901;
    expect(cache.get("a", make("A4"))).toBe("A4"); // 1 001 ms: idle, so a new one, the old evicted
    expect(evicted).toEqual(["B1", "A1"]);
    expect(made).toBe(3);
    cache.clear();
    expect(evicted).toEqual(["B1", "A1", "A4"]);
    expect(cache.size).toBe(0);
  });

  it("touch: counts a held entry as used (idle time and LRU order start again), makes nothing, and skips an idle one", () => {
    let now = 0;
    const evicted: string[] = [];
    const cache = new IdleCache<string, string>({ max: 2, idleMs: 1_000, now: () => now, onEvict: (v) => evicted.push(v) });
    expect(cache.touch("a")).toBeUndefined();
    expect(cache.size).toBe(0);
    cache.get("a", () => "A");
    cache.get("b", () => "B");
    now = 900;
    expect(cache.touch("a")).toBe("A"); // a is now the most recently used, its idle time from 900
    cache.get("c", () => "C"); // full: b (least recently used) goes, not a
    expect(evicted).toEqual(["B"]);
    now = 1_800;
    cache.sweep();
    expect(cache.peek("a")).toBe("A");
    now = 1_850;
    expect(cache.touch("a")).toBe("A"); // 950 ms since its touch at 900; its idle time from 1 850
    now = 2_851;
    expect(cache.touch("a")).toBeUndefined(); // 1 001 ms: idle past idleMs, not given back
    cache.clear();
  });

  it("holds at most max entries, evicting the least recently used", () => {
    const evicted: number[] = [];
    const cache = new IdleCache<number, number>({ max: 3, idleMs: 60_000, onEvict: (v) => evicted.push(v) });
    for (const n of [1, 2, 3]) cache.get(n, () => n);
    cache.get(1, () => -1); // 1 is now the most recently used
    cache.get(4, () => 4);
    expect(evicted).toEqual([2]);
    expect([1, 3, 4].map((n) => cache.peek(n))).toEqual([1, 3, 4]);
    expect(cache.size).toBe(3);
    cache.clear();
  });
});
