/**
 * The fleet's single-use store in Redis (LTI login states, exam links, deep-linking
 * pickers): a value put by one instance is taken exactly once fleet-wide, even when two
 * instances race for it; Redis holds it sealed under a keyed name (neither the key nor the
 * value readable there, another secret cannot open it); it expires with its TTL.
 */
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { inProcessSingleUse } from "../../src/fleet/single-use.js";
import { fleetsOnPrefix, randomPrefix, redisOrSkip } from "../support/redis.js";

const available = await redisOrSkip("the single-use store in Redis");
const prefix = randomPrefix("single-use");

describe("inProcessSingleUse's claim", () => {
  it("keeps the first of racing claims only, and is free again once that one is taken or expired", async () => {
    let now = 0;
    const store = inProcessSingleUse(() => now);
    const won = await Promise.all(Array.from({ length: 5 }, (_, i) => store.claim("lti-prepare-reading:x", `c${i}`, 1_000)));
    expect(won.filter(Boolean)).toHaveLength(1);
    expect(await store.peek("lti-prepare-reading:x")).toBe(`c${won.indexOf(true)}`);
    await store.take("lti-prepare-reading:x");
    expect(await store.claim("lti-prepare-reading:x", "again", 1_000)).toBe(true);
    now = 2_000;
    expect(await store.claim("lti-prepare-reading:x", "later", 1_000)).toBe(true);
  });
});

describe.runIf(available)("redisSingleUse across a fleet", () => {
  const { raw, fleet } = fleetsOnPrefix(prefix);

  it("a claim is atomic fleet-wide: of racing instances, one keeps it; once taken, it can be claimed again", async () => {
    const [a, b] = [await fleet(), await fleet()];
    for (let i = 0; i < 10; i += 1) {
      const key = `lti-prepare-reading:${randomBytes(12).toString("base64url")}`;
      const won = await Promise.all([a, b, a, b].map((f, j) => f.singleUse.claim(key, `c${j}`, 60_000)));
      expect(won.filter(Boolean)).toHaveLength(1);
      expect(await b.singleUse.peek(key)).toBe(`c${won.indexOf(true)}`);
      await a.singleUse.take(key);
      expect(await b.singleUse.claim(key, "again", 60_000)).toBe(true);
    }
  });

  it("is taken once fleet-wide: of two instances racing, one gets the value, the other nothing", async () => {
    const [a, b] = [await fleet(), await fleet()];
    for (let i = 0; i < 20; i += 1) {
      const key = `lti-state:${randomBytes(12).toString("base64url")}`;
      await a.singleUse.put(key, `value-${i}`, 60_000);
      expect(await b.singleUse.peek(key)).toBe(`value-${i}`);
      const got = await Promise.all([a.singleUse.take(key), b.singleUse.take(key)]);
      expect(got.filter((v) => v !== undefined)).toEqual([`value-${i}`]);
      expect(await a.singleUse.take(key)).toBeUndefined();
    }
  });

  it("keeps the value sealed under a keyed name, with its TTL; another secret cannot read it", async () => {
    const a = await fleet();
    const key = `lti-link:${randomBytes(12).toString("base64url")}`;
    const value = JSON.stringify({ email: "sam@lms.example", nonce: randomBytes(8).toString("hex") });
    await a.singleUse.put(key, value, 60_000);
    const names = (await raw.keys(`${prefix}:su:*`));
    expect(names.length).toBeGreaterThan(0);
    expect(names.join("\n")).not.toContain(key.split(":")[1]);
    const stored = await Promise.all(names.map((n) => raw.get(n)));
    expect(stored.join("\n")).not.toContain("sam@lms.example");
    const ttls = await Promise.all(names.map((n) => raw.pttl(n)));
    expect(Math.max(...ttls)).toBeGreaterThan(50_000);
    expect(Math.max(...ttls)).toBeLessThanOrEqual(60_000);
    const stranger = await fleet(randomBytes(32).toString("base64url"));
    expect(await stranger.singleUse.take(key)).toBeUndefined();
    expect(await a.singleUse.take(key)).toBe(value);
  });

  it("expires with its TTL", async () => {
    const a = await fleet();
    const key = `lti-pick:${randomBytes(12).toString("base64url")}`;
    await a.singleUse.put(key, "short", 100);
    // Wait on the condition (Redis expires it), not on a wall-clock bound.
    let left: string | undefined = "short";
    for (let i = 0; i < 100 && left !== undefined; i += 1) {
      await new Promise((r) => setTimeout(r, 50));
      left = await a.singleUse.peek(key);
    }
    expect(left).toBeUndefined();
    expect(await a.singleUse.take(key)).toBeUndefined();
  });
});
