/**
 * A careful attacker with write access to Redis (ioredis in the test, as `redis-cli` would
 * be): every value that decides who gets a token, or names a student, is refused when it
 * was forged, edited or moved, with one warn line that names neither the value nor whom
 * it is about. The router-level story (a forged plan for another class) is in
 * test/fleet-router/forged-plan.test.ts.
 */
import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { fleetReady, redisFleet, type RedisFleet } from "../../src/fleet/index.js";
import { captureLogger } from "../support/canary.js";
import { dropPrefix, randomPrefix, REDIS_URL, redisOrSkip, SECRET } from "../support/redis.js";

const available = await redisOrSkip("the fleet tampering tests");
const prefix = randomPrefix("tamper");

const ADA = { orgInternalId: "u-ada-tamper", email: "ada.tamper@school.test", firstName: "Ada", lastName: "Lovelace" };
const adaKey = `${ADA.orgInternalId}\u0000${ADA.email}`;
const bobKey = "u-bob-tamper\u0000bob.tamper@school.test";
const PERSONAL = [ADA.orgInternalId, ADA.email, "u-bob-tamper", "bob.tamper@school.test"];

describe.runIf(available)("forged, edited or moved fleet state in Redis is refused", () => {
  const raw = new Redis(REDIS_URL);
  const logger = captureLogger();
  let fleet: RedisFleet;
  const refusals = () => logger.lines.filter((l) => l.obj.event === "fleet_value_refused");
  /** Runs `act` and returns the keys under `pattern` it created. */
  const created = async (pattern: string, act: () => Promise<unknown>): Promise<string[]> => {
    const before = new Set(await raw.keys(`${prefix}:${pattern}`));
    await act();
    return (await raw.keys(`${prefix}:${pattern}`)).filter((k) => !before.has(k));
  };
  /** The log lines refused since `from`: they name what and where, never a value or a student. */
  const refusedSince = (from: number, values: string[] = []) => {
    const lines = refusals().slice(from);
    const text = JSON.stringify(lines);
    for (const secret of [...PERSONAL, ...values]) expect(text).not.toContain(secret);
    return lines.map((l) => ({ what: l.obj.what, key: l.obj.key, level: l.level }));
  };

  beforeAll(async () => {
    fleet = redisFleet({ url: REDIS_URL, secret: SECRET, prefix, logger, outcomeTtlMs: 60_000, claimGraceMs: 1_000 });
    await fleetReady(fleet);
  });
  afterAll(async () => {
    await fleet.close();
    await dropPrefix(prefix);
    raw.disconnect();
  });

  it("a plan input written directly is not used, nor a sound one moved to another plan's key", async () => {
    const from = refusals().length;
    const forged = JSON.stringify({ examId: "exam-forged", classId: "class-evil", startAt: Date.now() + 60_000, roster: [ADA], version: "v" });
    await raw.set(`${prefix}:plan:{exam-forged}:input`, forged, "PX", 60_000);
    await raw.zadd(`${prefix}:plans:active`, Date.now() + 60_000, "exam-forged");
    expect(await fleet.planLeases.published("exam-forged")).toBeUndefined();

    const input = JSON.stringify({ examId: "exam-a", classId: "class-a", startAt: Date.now() + 60_000, roster: [ADA], version: "v1" });
    await fleet.planLeases.publish("exam-a", input, Date.now() + 60_000);
    const sealed = (await raw.get(`${prefix}:plan:{exam-a}:input`))!;
    expect(sealed).not.toContain(ADA.email);
    await raw.set(`${prefix}:plan:{exam-b}:input`, sealed, "PX", 60_000);
    expect(await fleet.planLeases.published("exam-b")).toBeUndefined();
    expect(await fleet.planLeases.published("exam-a")).toBe(input);
    // Read again: still refused, but reported once per value.
    expect(await fleet.planLeases.published("exam-forged")).toBeUndefined();
    expect(refusedSince(from, [forged, sealed])).toEqual([
      { what: "plan input", key: `${prefix}:plan:{exam-forged}:input`, level: "warn" },
      { what: "plan input", key: `${prefix}:plan:{exam-b}:input`, level: "warn" },
    ]);
  });

  it("an edited or replaced progress field is left out of the progress", async () => {
    const from = refusals().length;
    const key = `${prefix}:plan:{exam-p}:progress`;
    await fleet.planLeases.record("exam-p", { snapshot: JSON.stringify({ failed: 1, failures: [{ orgInternalId: ADA.orgInternalId }] }), state: "issuing" });
    await fleet.planLeases.count("exam-p", { platformCalls: 2 });
    const stored = await raw.hgetall(key);
    expect(JSON.stringify(stored)).not.toContain(ADA.orgInternalId);
    await raw.hset(key, "s:snapshot", JSON.stringify({ failed: 0, failures: [] }));
    const sealedState = stored["s:state"]!;
    await raw.hset(key, "s:state", `${sealedState.slice(0, -4)}AAAA`);
    expect(await fleet.planLeases.progress("exam-p")).toEqual({ platformCalls: 2 });
    expect(refusedSince(from).map((l) => l.what)).toEqual(["plan progress", "plan progress"]);
  });

  it("a per-student mark that is forged, edited or moved to another student is ignored", async () => {
    const from = refusals().length;
    const key = `${prefix}:plan:{exam-m}:marks`;
    const until = Date.now() + 60_000;
    await fleet.planLeases.markStored("exam-m", adaKey, until);
    await fleet.planLeases.markTaken("exam-m", bobKey, "handedOut");
    expect(Object.fromEntries(await fleet.planLeases.marks("exam-m", [adaKey, bobKey]))).toEqual({ [adaKey]: { usableUntil: until }, [bobKey]: { taken: "handedOut" } });
    const fields = await raw.hgetall(key);
    expect(JSON.stringify(fields)).not.toMatch(/tamper/);
    const adaStored = Object.keys(fields).find((f) => f.startsWith("u:"))!;
    const bobHanded = Object.keys(fields).find((f) => f.startsWith("h:"))!;
    // Bob's "handed out" mark moved to Ada (her field name, his value); Ada's time pushed out.
    await raw.hset(key, `h:${adaStored.slice(2)}`, fields[bobHanded]!);
    await raw.hset(key, adaStored, fields[adaStored]!.replace(String(until), String(until + 3_600_000)));
    await raw.hset(key, `d:${bobHanded.slice(2)}`, "1");
    expect(Object.fromEntries(await fleet.planLeases.marks("exam-m", [adaKey, bobKey]))).toEqual({ [bobKey]: { taken: "handedOut" } });
    expect(refusedSince(from).map((l) => l.what)).toEqual(["plan mark", "plan mark", "plan mark"]);
  });

  it("a failure page written into a running attempt is not shown: the student starts over", async () => {
    const from = refusals().length;
    let ticket = { waitId: "", lease: undefined as string | undefined };
    const [key] = await created("att:*", async () => { ticket = await fleet.attempts.begin("exam-f", adaKey); });
    const detail = "Your session expired: sign in again at https://evil.example/login";
    // Both layouts an attacker might try: plain status and detail, or a made-up sealed outcome.
    await raw.hset(key!, { state: "done", kind: "failed", status: "403", detail, outcome: `v2.default.${randomBytes(12).toString("base64url")}.AAAA.${randomBytes(16).toString("base64url")}` });
    expect(await fleet.attempts.claim(ticket.waitId, "exam-f", adaKey)).toBeUndefined();
    const next = await fleet.attempts.begin("exam-f", adaKey);
    expect(next.waitId).not.toBe(ticket.waitId);
    expect(next.lease).toBeDefined();
    expect(refusedSince(from, [detail])).toEqual([{ what: "attempt outcome", key, level: "warn" }]);
  });

  it("a failed outcome's status and page text are sealed: the raw record holds neither", async () => {
    const { waitId, lease } = await fleet.attempts.begin("exam-g", adaKey);
    const detail = `Class is full for ${ADA.email}`;
    await fleet.attempts.complete(waitId, lease!, { kind: "failed", status: 409, detail });
    const records = await Promise.all((await raw.keys(`${prefix}:att:*`)).map((k) => raw.hgetall(k)));
    const record = records.find((r) => r.waitId === waitId)!;
    expect(record.state).toBe("done");
    expect(JSON.stringify(record)).not.toContain(ADA.email);
    expect(Object.values(record)).not.toContain("409");
    expect(Object.values(record)).not.toContain(detail);
    expect(await fleet.attempts.claim(waitId, "exam-g", adaKey)).toEqual({ kind: "failed", status: 409, detail });
  });

  it("a used token put back (marked unclaimed, kept past its life) is not handed out again", async () => {
    const from = refusals().length;
    const token = `tok_${randomBytes(12).toString("hex")}`;
    let ticket = { waitId: "", lease: undefined as string | undefined };
    const [key] = await created("att:*", async () => { ticket = await fleet.attempts.begin("exam-r", adaKey); });
    await fleet.attempts.complete(ticket.waitId, ticket.lease!, { kind: "token", token });
    expect(await fleet.attempts.claim(ticket.waitId, "exam-r", adaKey)).toEqual({ kind: "token", token });
    await raw.persist(key!);
    await raw.hset(key!, "claimed", "0");
    // An hour later by this instance's clock (Redis's own clock, which times the claim grace, is untouched).
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 60 * 60_000 });
    try {
      expect(await fleet.attempts.claim(ticket.waitId, "exam-r", adaKey)).toBeUndefined();
    } finally {
      vi.useRealTimers();
    }
    expect(refusedSince(from, [token])).toEqual([{ what: "attempt outcome", key, level: "warn" }]);
  });

  it("a sealed token outcome moved to another student's attempt does not open", async () => {
    const from = refusals().length;
    const tokens = [`tok_${randomBytes(12).toString("hex")}`, `tok_${randomBytes(12).toString("hex")}`];
    const tickets: { waitId: string; lease: string | undefined }[] = [];
    const keys: string[] = [];
    for (const [i, student] of [adaKey, bobKey].entries()) {
      keys.push(...await created("att:*", async () => { tickets.push(await fleet.attempts.begin("exam-x", student)); }));
      await fleet.attempts.complete(tickets[i]!.waitId, tickets[i]!.lease!, { kind: "token", token: tokens[i]! });
    }
    // Bob's sealed outcome copied into Ada's record, whichever field holds it.
    const bob = await raw.hgetall(keys[1]!);
    for (const field of ["outcome", "token"]) if (bob[field]) await raw.hset(keys[0]!, field, bob[field]);
    expect(await fleet.attempts.claim(tickets[0]!.waitId, "exam-x", adaKey)).toBeUndefined();
    expect(await fleet.attempts.claim(tickets[1]!.waitId, "exam-x", bobKey)).toEqual({ kind: "token", token: tokens[1] });
    expect(refusedSince(from, tokens)).toEqual([{ what: "attempt outcome", key: keys[0], level: "warn" }]);
  });

  it("a prepared token written directly is no token waiting: a new plan leader issues one instead of trusting it", async () => {
    const from = refusals().length;
    const [key] = await created("pt:*", () => fleet.preparedTokens.put("exam-w", adaKey, "tok-real", Date.now() + 60_000, "class-a"));
    await raw.set(key!, JSON.stringify({ t: "tok-forged", u: Date.now() + 60_000, c: "class-a" }), "PX", 60_000);
    expect(await fleet.preparedTokens.has("exam-w", adaKey)).toBe(false);
    expect(await fleet.preparedTokens.take("exam-w", adaKey, "class-a")).toBeUndefined();
    expect(refusedSince(from, ["tok-forged"])).toEqual([{ what: "prepared token", key, level: "warn" }]);
  });

  it("a prepared token kept past its usable life (its expiry removed) is no token waiting, and is not handed out", async () => {
    const token = `tok_${randomBytes(12).toString("hex")}`;
    const usableUntil = Date.now() + 60_000;
    const [key] = await created("pt:*", () => fleet.preparedTokens.put("exam-k", adaKey, token, usableUntil, "class-a"));
    await raw.persist(key!);
    // Past its usableUntil by this instance's clock; Redis still holds the sealed value (no expiry).
    vi.useFakeTimers({ toFake: ["Date"], now: usableUntil + 60_000 });
    try {
      expect(await fleet.preparedTokens.has("exam-k", adaKey)).toBe(false);
      expect(await fleet.preparedTokens.take("exam-k", adaKey, "class-a")).toBeUndefined();
    } finally {
      vi.useRealTimers();
    }
  });

  it("a sealed or signed value relabelled with a key id the fleet does not list is refused, not opened with the current secret", async () => {
    const from = refusals().length;
    const token = `tok_${randomBytes(12).toString("hex")}`;
    const [ptKey] = await created("pt:*", () => fleet.preparedTokens.put("exam-i", adaKey, token, Date.now() + 60_000, "class-a"));
    const sealed = (await raw.get(ptKey!))!;
    expect(sealed.split(".")[1]).toBe("default");
    await raw.set(ptKey!, sealed.replace(/^v2\.default\./, "v2.retired."), "PX", 60_000);
    expect(await fleet.preparedTokens.take("exam-i", adaKey, "class-a")).toBeUndefined();
    // A plan mark (signed, not sealed) relabelled the same way.
    const marks = `${prefix}:plan:{exam-i}:marks`;
    await fleet.planLeases.markStored("exam-i", adaKey, Date.now() + 60_000);
    const fields = await raw.hgetall(marks);
    const stored = Object.keys(fields).find((f) => f.startsWith("u:"))!;
    expect(fields[stored]!.split(".")[1]).toBe("default");
    await raw.hset(marks, stored, fields[stored]!.replace(/^m1\.default\./, "m1.retired."));
    expect(Object.fromEntries(await fleet.planLeases.marks("exam-i", [adaKey]))).toEqual({});
    expect(refusedSince(from, [token]).map((l) => l.what)).toEqual(["prepared token", "plan mark"]);
  });

  it("a single-use value written directly (an LTI state or exam link not sealed by the fleet) is none", async () => {
    const name = `lti-state:${randomBytes(12).toString("base64url")}`;
    const [key] = await created("su:*", () => fleet.singleUse.put(name, JSON.stringify({ nonce: "real" }), 60_000));
    const forged = JSON.stringify({ nonce: "forged", email: "mallory@school.test" });
    await raw.set(key!, forged, "PX", 60_000);
    expect(await fleet.singleUse.peek(name)).toBeUndefined();
    expect(await fleet.singleUse.take(name)).toBeUndefined();
    // A value sealed for another single-use key, copied under this one, is none too.
    const other = `lti-state:${randomBytes(12).toString("base64url")}`;
    const [otherKey] = await created("su:*", () => fleet.singleUse.put(other, "sealed elsewhere", 60_000));
    await raw.set(key!, (await raw.get(otherKey!))!, "PX", 60_000);
    expect(await fleet.singleUse.take(name)).toBeUndefined();
    expect(await fleet.singleUse.take(other)).toBe("sealed elsewhere");
  });

  it("a prepared token sealed for one class is dropped, not handed out, when the launch resolved another class", async () => {
    const from = refusals().length;
    const token = `tok_${randomBytes(12).toString("hex")}`;
    await fleet.preparedTokens.put("exam-c", adaKey, token, Date.now() + 60_000, "class-a");
    expect(await fleet.preparedTokens.take("exam-c", adaKey, "class-b")).toBeUndefined();
    expect(await fleet.preparedTokens.has("exam-c", adaKey)).toBe(false);
    expect(refusedSince(from, [token]).map((l) => l.what)).toEqual(["prepared token"]);
  });
});
