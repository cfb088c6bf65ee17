/**
 * What Redis holds after a real exam day in fleet mode: a prepared roster (one student
 * refused by the platform, so the progress lists a failure), a prepared token handed out,
 * an on-demand launch and a failed one. Scanning every key and value under the fleet's
 * prefix finds no student id or e-mail, nor a roster's field names: rosters, progress and outcomes are sealed,
 * per-student names are keyed hashes. The instructor still reads the failures through
 * `GET …/prepare`.
 */
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fleetReady, redisFleet, type RedisFleet } from "../../src/fleet/index.js";
import { dropPrefix, randomPrefix, REDIS_URL, redisOrSkip, SECRET } from "../support/redis.js";
import { readJson, rosterOf, startStormStack, until, type StormStack } from "../storm/support.js";
import { userNamed } from "../support/users.js";

const available = await redisOrSkip("the fleet personal-data scan");
const prefix = randomPrefix("personal");

type Progress = { ready: number; failed: number; handedOut: number; failures: { orgInternalId: string }[] };

/** Every key under `prefix` and everything in it, as text (SCAN, never KEYS). */
async function everythingUnder(raw: Redis): Promise<string> {
  const parts: string[] = [];
  let cursor = "0";
  do {
    const [next, keys] = await raw.scan(cursor, "MATCH", `${prefix}:*`, "COUNT", 200);
    cursor = next;
    for (const key of keys) {
      parts.push(key);
      const type = await raw.type(key);
      if (type === "string") parts.push((await raw.get(key)) ?? "");
      else if (type === "hash") parts.push(JSON.stringify(await raw.hgetall(key)));
      else if (type === "zset") parts.push(JSON.stringify(await raw.zrange(key, "0", "-1", "WITHSCORES")));
      else if (type === "list") parts.push(JSON.stringify(await raw.lrange(key, "0", "-1")));
      else if (type === "set") parts.push(JSON.stringify(await raw.smembers(key)));
    }
  } while (cursor !== "0");
  return parts.join("\n");
}

describe.runIf(available)("no student data in Redis after a prepare and launches", () => {
  const raw = new Redis(REDIS_URL);
  let fleet: RedisFleet;
  let stack: StormStack;

  beforeAll(async () => {
    fleet = redisFleet({ url: REDIS_URL, secret: SECRET, prefix, planLeaseMs: 600, commandTimeoutMs: 3_000 });
    await fleetReady(fleet);
    stack = await startStormStack({ router: { fleet, canLaunch: () => true } });
  });
  afterAll(async () => {
    await stack?.close();
    await fleet?.close();
    await dropPrefix(prefix);
    raw.disconnect();
  });

  it("scans the prefix: no id or e-mail of any student who was prepared or launched, no roster field", async () => {
    const { examId } = await stack.seedExam();
    const progress = async () => readJson<{ data: Progress }>(await stack.as("ines", `/oral/oral-assessments/${examId}/prepare`)).then((b) => b.data);
    const roster = ["s30", "s31", "s32", "s33"];
    // The platform refuses the first prepared student (a full class): the progress names them.
    stack.emulator.fault({ type: "status", status: 409, count: 1, pathPrefix: "/students/sign-in-token" });
    const prepared = await stack.as("ines", `/oral/oral-assessments/${examId}/prepare`, {
      method: "POST", body: { startAt: new Date(Date.now() + 60_000).toISOString(), roster: roster.map(rosterOf) },
    });
    expect(prepared.status).toBe(202);
    await until(async () => { const p = await progress(); return p.ready === 3 && p.failed === 1; });

    const refused = (await progress()).failures[0]!.orgInternalId;
    const readyOne = roster.find((name) => userNamed(name).id !== refused)!;
    expect((await stack.as(readyOne, `/oral/launch/${examId}`)).status).toBe(303);
    expect((await stack.as("s40", `/oral/launch/${examId}`)).status).toBe(303);
    stack.emulator.fault({ type: "status", status: 409, count: 1, pathPrefix: "/students/sign-in-token" });
    expect((await stack.as("s41", `/oral/launch/${examId}`)).status).toBeGreaterThanOrEqual(400);
    await until(async () => (await progress()).handedOut === 1);
    const seen = await progress();
    expect(seen.failures).toHaveLength(1);

    const everything = await everythingUnder(raw);
    expect(everything).toContain(":plan:"); // the scan saw the plan, its progress and marks
    expect(everything).toContain(":att:");
    for (const name of [...roster, "s40", "s41"]) {
      const user = userNamed(name);
      for (const personal of [user.id, user.email!]) expect(everything, `${name}: ${personal}`).not.toContain(personal);
    }
    // A roster's field names would show a plain roster even without these students.
    expect(everything).not.toMatch(/lastName|orgInternalId|firstName/);
  });
});
