/**
 * The double-click grace of the default, in-process fleet: the requests of one double
 * click are woken together but claim the token one after the other, and on a busy
 * machine not within the same millisecond. Each must still get the token.
 */
import { describe, expect, it } from "vitest";
import { inProcessFleet } from "../../src/fleet/fleet.js";
import { inProcessLaunchAttempts } from "../../src/fleet/launch-attempts.js";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function settledToken(store: ReturnType<typeof inProcessFleet>["attempts"]) {
  const ticket = await store.begin("exam-1", "student-1");
  expect(ticket.lease).toBeDefined();
  expect(await store.complete(ticket.waitId, ticket.lease!, { kind: "token", token: "signin_abc" })).toBe(true);
  return ticket.waitId;
}

describe("the in-process double-click grace", () => {
  it("gives the token to a second claim that comes some milliseconds after the first (default fleet)", async () => {
    const { attempts } = inProcessFleet();
    const waitId = await settledToken(attempts);
    expect(await attempts.claim(waitId, "exam-1", "student-1")).toEqual({ kind: "token", token: "signin_abc" });
    await sleep(25);
    expect(await attempts.claim(waitId, "exam-1", "student-1")).toEqual({ kind: "token", token: "signin_abc" });
  });

  it("lasts 5 s by default, and not a millisecond longer (on an injected clock)", async () => {
    let now = 1_000_000;
    const attempts = inProcessLaunchAttempts({ leaseMs: 10_000, outcomeTtlMs: 120_000 }, () => now);
    const waitId = await settledToken(attempts);
    expect(await attempts.claim(waitId, "exam-1", "student-1")).toBeDefined();
    now += 5_000;
    expect(await attempts.claim(waitId, "exam-1", "student-1")).toEqual({ kind: "token", token: "signin_abc" });
    now += 1;
    expect(await attempts.claim(waitId, "exam-1", "student-1")).toBeUndefined();
  });
});
