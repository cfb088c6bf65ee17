/**
 * Rotating the fleet secret (docs/fleet.md, "Rotating the secret"): instances listing
 * `[{ id: "next", secret: NEW }, { id: "default", secret: OLD }]` seal under NEW and still
 * open everything sealed under OLD (a plain-string secret's id is "default"), including
 * lookups by names made under OLD; once OLD is removed, none of it opens, and what is
 * refused is logged with the key id it claims.
 */
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { RedisFleet, RedisFleetOptions } from "../../src/fleet/index.js";
import { captureLogger } from "../support/canary.js";
import { fleetsOnPrefix, randomPrefix, redisOrSkip } from "../support/redis.js";

const available = await redisOrSkip("the fleet secret rotation tests");
const prefix = randomPrefix("rotate");
const OLD = randomBytes(32).toString("base64url");
const NEW = randomBytes(48).toString("base64");
const ada = "u-ada-rot\u0000ada.rot@school.test";
const bob = "u-bob-rot\u0000bob.rot@school.test";

describe.runIf(available)("rotating the fleet secret", () => {
  const on = fleetsOnPrefix(prefix);
  const raw = on.raw;
  const fleet = (secret: RedisFleetOptions["secret"], logger = captureLogger()) => on.fleet(secret, { logger, commandTimeoutMs: 3_000, outcomeTtlMs: 60_000 });

  /** Everything a fleet keeps, written under `secret` for exam `examId`. */
  async function writeEverything(writer: RedisFleet, examId: string) {
    const input = JSON.stringify({ examId, classId: "class-r", roster: [] });
    const until = Date.now() + 60_000;
    await writer.preparedTokens.put(examId, ada, "tok-prepared", until, "class-r");
    await writer.planLeases.publish(examId, input, until);
    await writer.planLeases.record(examId, { snapshot: "{\"ready\":1}" });
    await writer.planLeases.markStored(examId, ada, until);
    await writer.planLeases.markTaken(examId, bob, "onDemand");
    const won = await writer.attempts.begin(examId, ada);
    await writer.attempts.complete(won.waitId, won.lease!, { kind: "token", token: "tok-attempt" });
    const lost = await writer.attempts.begin(examId, bob);
    await writer.attempts.complete(lost.waitId, lost.lease!, { kind: "failed", status: 409, detail: "The class is full." });
    const running = await writer.attempts.begin(`${examId}-running`, ada);
    return { input, until, won: won.waitId, lost: lost.waitId, running: running.waitId };
  }

  it("after the switch, values sealed under the old listed secret still open, by names made under it too", async () => {
    const before = await fleet(OLD); // a plain string: its id is "default"
    const written = await writeEverything(before, "exam-switch");
    const logger = captureLogger();
    const after = await fleet([{ id: "next", secret: NEW }, { id: "default", secret: OLD }], logger);

    expect(await after.planLeases.published("exam-switch")).toBe(written.input);
    expect((await after.planLeases.progress("exam-switch")).snapshot).toBe("{\"ready\":1}");
    expect(Object.fromEntries(await after.planLeases.marks("exam-switch", [ada, bob]))).toEqual({ [ada]: { usableUntil: written.until }, [bob]: { taken: "onDemand" } });
    expect(await after.attempts.view(written.won, "exam-switch", ada)).toEqual({ state: "done", outcome: "token", claimed: false });
    expect(await after.attempts.claim(written.won, "exam-switch", ada)).toEqual({ kind: "token", token: "tok-attempt" });
    expect(await after.attempts.claim(written.lost, "exam-switch", bob)).toEqual({ kind: "failed", status: 409, detail: "The class is full." });
    expect(await after.attempts.view(written.running, "exam-switch-running", ada)).toEqual({ state: "running", leaseLapsed: false });
    expect(await after.preparedTokens.has("exam-switch", ada)).toBe(true);
    expect((await after.preparedTokens.take("exam-switch", ada, "class-r"))?.token).toBe("tok-prepared");
    expect(await before.preparedTokens.has("exam-switch", ada)).toBe(false); // handed out once, under either name
    expect(logger.lines.filter((l) => l.obj.event === "fleet_value_refused")).toEqual([]);

    // New values are sealed under the first secret, and the instances still on the old list cannot open them.
    await after.planLeases.publish("exam-new", "{\"v\":2}", Date.now() + 60_000);
    expect(await raw.get(`${prefix}:plan:{exam-new}:input`)).toMatch(/^v2\.next\./);
    expect(await before.planLeases.published("exam-new")).toBeUndefined();
  });

  it("after the old secret is removed, nothing sealed under it opens, and the refusals say which key id they claim", async () => {
    const before = await fleet([{ id: "old", secret: OLD }]);
    const written = await writeEverything(before, "exam-retired");
    const logger = captureLogger();
    const after = await fleet([{ id: "next", secret: NEW }], logger);

    expect(await after.planLeases.published("exam-retired")).toBeUndefined();
    expect(await after.planLeases.progress("exam-retired")).toEqual({});
    expect((await after.planLeases.marks("exam-retired", [ada, bob])).size).toBe(0);
    expect(await after.attempts.view(written.won, "exam-retired", ada)).toEqual({ state: "unknown" });
    expect(await after.attempts.claim(written.won, "exam-retired", ada)).toBeUndefined();
    expect(await after.preparedTokens.take("exam-retired", ada, "class-r")).toBeUndefined();
    const refused = logger.lines.filter((l) => l.obj.event === "fleet_value_refused").map((l) => [l.obj.what, l.obj.keyId, l.obj.keyListed]);
    expect(refused).toEqual([["plan input", "old", false], ["plan progress", "old", false]]);
    // The old secret's holders still read their own values: the switch, not Redis, changed.
    expect(await before.planLeases.published("exam-retired")).toBe(written.input);
  });
});
