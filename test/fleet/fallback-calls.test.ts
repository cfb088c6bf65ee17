/**
 * The fallback's calls the shared window takes in when Redis is back (on an injected
 * clock): in flight or answered less than a window ago; one answered while the adoption
 * script ran is handed back so its answer goes to Redis too.
 */
import { describe, expect, it } from "vitest";
import { FallbackCalls } from "../../src/fleet/fallback-calls.js";

describe("the fallback's calls kept for the shared window", () => {
  it("adopts those that may still count, and hands back one answered during the adoption", () => {
    let now = 10_000;
    const calls = new FallbackCalls(() => now);
    calls.sent("old");
    calls.sent("a");
    now += 100;
    expect(calls.answered("old")).toBe(false); // not in Redis yet
    calls.sent("b");
    now += 1_000;
    const { args, ids, inFlight } = calls.adopt(1_000); // "old" was answered 1 000 ms ago: gone
    expect(ids).toEqual(["a", "b"]);
    expect(args).toEqual(["a", 1_100, -1, "b", 1_000, -1]);
    expect(calls.answered("a")).toBe(false); // the script is still running
    expect(calls.written(ids, inFlight)).toEqual(["a"]);
    expect(calls.answered("b")).toBe(true); // written: its answer goes to Redis
    expect(calls.pending(1_000)).toBe(false);
    now += 1_000;
    expect(calls.has("a")).toBe(true);
    expect(calls.pending(1_000)).toBe(false);
    expect(calls.has("a")).toBe(false);
  });
});
