/** How long a refresh with a wait id the store does not know keeps getting the waiting page (no call) before it starts over. */
import { describe, expect, it } from "vitest";
import { KEPT, UnseenWaits } from "../../src/router/launch/unseen-waits.js";

const LOOK_MS = 15_000;
const AFTER_OUTAGE_MS = 3_000;

describe("UnseenWaits", () => {
  it("in process (no fallback) or long after an outage: never, the student starts over at once", () => {
    const unseen = new UnseenWaits(LOOK_MS, AFTER_OUTAGE_MS);
    expect(unseen.keepLooking("w1", undefined, undefined, 1_000_000)).toBe(false);
    expect(unseen.keepLooking("w1", true, 0, 1_000_000)).toBe(false);
    expect(unseen.keepLooking("w1", true, 1_000_000 - AFTER_OUTAGE_MS, 1_000_000)).toBe(false);
  });

  it("while Redis is away, or just back: yes, for at most lookMs per wait id from when it was first seen", () => {
    const unseen = new UnseenWaits(LOOK_MS, AFTER_OUTAGE_MS);
    const t = 1_000_000;
    expect(unseen.keepLooking("w1", false, 0, t)).toBe(true);
    expect(unseen.keepLooking("w1", false, 0, t + LOOK_MS - 1)).toBe(true);
    expect(unseen.keepLooking("w2", true, t + LOOK_MS - 100, t + LOOK_MS)).toBe(true);
    expect(unseen.keepLooking("w1", true, t + LOOK_MS - 100, t + LOOK_MS)).toBe(false);
    unseen.sweep(t + LOOK_MS + 1);
    // Forgotten after its look: a later outage looks again.
    expect(unseen.keepLooking("w1", false, 0, t + LOOK_MS + 2)).toBe(true);
  });

  it("a flood of made-up wait ids during an outage keeps at most KEPT, the oldest forgotten first", () => {
    const unseen = new UnseenWaits(LOOK_MS, AFTER_OUTAGE_MS);
    const t = 1_000_000;
    for (let i = 0; i <= KEPT; i += 1) expect(unseen.keepLooking(`w${i}`, false, 0, t)).toBe(true);
    const later = t + LOOK_MS + 1; // no sweep in between: only the bound forgot anything
    expect(unseen.keepLooking("w1", false, 0, later)).toBe(false); // still remembered: its look is over
    expect(unseen.keepLooking("w0", false, 0, later)).toBe(true); // forgotten for the newest: seen afresh
  });
});
