/**
 * What Redis holds: tokens encrypted (the raw value never contains the token, another
 * secret cannot open it), no API key and no student identity in any key name, and
 * take-once under a real race between two instances.
 */
import { describe, expect, it } from "vitest";
import { createPlatformClient } from "../../src/platform/index.js";
import { startEmulator } from "../../src/emulator/index.js";
import { keyHash } from "../../src/platform/key-hash.js";
import { TEST_KEY } from "../support/keys.js";
import { fleetsOnPrefix, randomPrefix, redisOrSkip } from "../support/redis.js";
import { randomBytes } from "node:crypto";

const available = await redisOrSkip("the fleet at-rest tests");
const prefix = randomPrefix("rest");

describe.runIf(available)("fleet state at rest in Redis", () => {
  const { raw, fleet } = fleetsOnPrefix(prefix);
  const everything = async () => {
    const keys = await raw.keys(`${prefix}:*`);
    const values: string[] = [];
    for (const key of keys) {
      const type = await raw.type(key);
      if (type === "string") values.push((await raw.get(key)) ?? "");
      if (type === "hash") values.push(JSON.stringify(await raw.hgetall(key)));
      if (type === "zset") values.push(JSON.stringify(await raw.zrange(key, "0", "-1")));
    }
    return { keys, values };
  };

  it("a prepared token is sealed: the raw value lacks it, another secret cannot open it", async () => {
    const a = await fleet();
    const token = `tok_${randomBytes(12).toString("hex")}`;
    await a.preparedTokens.put("exam-7", "student-secret-id\u0000ada@example.org", token, Date.now() + 60_000, "class-1");
    const { keys, values } = await everything();
    expect(keys.length).toBeGreaterThan(0);
    expect(values.join("\n")).not.toContain(token);
    expect(keys.join("\n")).not.toMatch(/student-secret-id|ada@example|exam-7/);
    const ttl = await raw.pttl(keys.find((k) => k.includes(":pt:"))!);
    expect(ttl).toBeGreaterThan(50_000);
    expect(ttl).toBeLessThanOrEqual(60_000);

    const stranger = await fleet(randomBytes(32).toString("base64url"));
    // Another secret names keys differently and, given the very value, cannot open it.
    expect(await stranger.preparedTokens.take("exam-7", "student-secret-id\u0000ada@example.org", "class-1")).toBeUndefined();
    const b = await fleet();
    expect((await b.preparedTokens.take("exam-7", "student-secret-id\u0000ada@example.org", "class-1"))?.token).toBe(token);
  });

  it("a value copied under another key, or sealed with another secret, does not open", async () => {
    const a = await fleet();
    const token = `tok_${randomBytes(12).toString("hex")}`;
    await a.preparedTokens.put("exam-8", "s1", token, Date.now() + 60_000, "class-1");
    await a.preparedTokens.put("exam-8", "s2", "other", Date.now() + 60_000, "class-1");
    const keys = await raw.keys(`${prefix}:pt:*`);
    const values = await Promise.all(keys.map((k) => raw.get(k)));
    const sealed = values.find((v) => v !== null)!;
    // Put the sealed value under every token key: only its own key opens it.
    for (const key of keys) await raw.set(key, sealed, "PX", 60_000);
    const taken = [await a.preparedTokens.take("exam-8", "s1", "class-1"), await a.preparedTokens.take("exam-8", "s2", "class-1")];
    expect(taken.filter((t) => t !== undefined)).toHaveLength(1);
    const stranger = await fleet(randomBytes(32).toString("base64url"));
    await stranger.preparedTokens.put("exam-9", "s1", "x", Date.now() + 60_000, "class-1");
    const [strangerKey] = (await raw.keys(`${prefix}:pt:*`)).filter((k) => !keys.includes(k));
    await a.preparedTokens.put("exam-9", "s1", "mine", Date.now() + 60_000, "class-1");
    const mineKey = (await raw.keys(`${prefix}:pt:*`)).find((k) => !keys.includes(k) && k !== strangerKey)!;
    await raw.set(mineKey, (await raw.get(strangerKey!))!, "PX", 60_000);
    expect(await a.preparedTokens.take("exam-9", "s1", "class-1")).toBeUndefined();
  });

  it("take-once under a race: 60 takers on two instances, one winner per token", async () => {
    const [a, b] = [await fleet(), await fleet()];
    const students = Array.from({ length: 5 }, (_, i) => `racer-${i}`);
    for (const s of students) await a.preparedTokens.put("exam-race", s, `tok-${s}`, Date.now() + 60_000, "class-1");
    const takes = await Promise.all(students.flatMap((s) => Array.from({ length: 12 }, (_, i) => (i % 2 ? a : b).preparedTokens.take("exam-race", s, "class-1"))));
    const won = takes.filter((t) => t !== undefined).map((t) => t!.token).sort();
    expect(won).toEqual(students.map((s) => `tok-${s}`).sort());
    expect(takes).toHaveLength(60); // the race happened: 12 concurrent takers per token
  });

  it("a launch attempt's token outcome is sealed too", async () => {
    const a = await fleet();
    const token = `tok_${randomBytes(12).toString("hex")}`;
    const { waitId, lease } = await a.attempts.begin("exam-att", "student-att");
    await a.attempts.complete(waitId, lease!, { kind: "token", token });
    const { values } = await everything();
    expect(values.join("\n")).not.toContain(token);
    expect(await a.attempts.claim(waitId, "exam-att", "student-att")).toEqual({ kind: "token", token });
  });

  it("the rate window is named by an HMAC of the API key under the secret: neither the key nor its plain hash", async () => {
    const a = await fleet();
    const stranger = await fleet(randomBytes(32).toString("base64url"));
    const emulator = await startEmulator({ testKeys: [TEST_KEY] });
    const windows = async () => new Set((await everything()).keys.filter((k) => k.includes(":{rb:")).map((k) => /\{rb:([^}]+)\}/.exec(k)![1]));
    const platform = createPlatformClient({ apiKey: TEST_KEY, baseUrl: emulator.url, rateBudget: a.rateBudget });
    const other = createPlatformClient({ apiKey: TEST_KEY, baseUrl: emulator.url, rateBudget: stranger.rateBudget });
    try {
      await platform.courses.list();
      const { keys, values } = await everything();
      const [name, ...more] = await windows();
      expect(name).toMatch(/^[0-9a-f]{32}$/);
      expect(more).toEqual([]);
      expect(keys.join("\n")).not.toContain(TEST_KEY);
      expect(values.join("\n")).not.toContain(TEST_KEY);
      // Whoever reads Redis cannot test a guessed key against the name without the secret.
      expect(keys.join("\n")).not.toContain(keyHash(TEST_KEY));
      // Another secret, another name for the same key.
      await other.courses.list();
      expect((await windows()).size).toBe(2);
    } finally {
      platform.close();
      other.close();
      await emulator.close();
    }
  });
});
