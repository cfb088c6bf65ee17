/**
 * The fleet's organizations figure (`fleet.organizations`): in fleet mode nothing per
 * organization may live forever in Redis. `count` organizations (each its own school, key
 * and exam host on an emulator process) are each touched once through a router on a Redis
 * fleet (the built package, an `organization` resolver): an exam made through the
 * instructor API, one student's launch (an attempt, its outcome, the student's fair share,
 * the rate budget's window of the organization's key), and a roster of one pre-warmed
 * (a plan, its lease, its progress and a prepared token). Then every organization stays
 * idle past the longest of the fleet's lifetimes, which the bench sets short so it takes
 * seconds (`TIMINGS` below); the figures are the keys under the bench's own prefix before
 * (`keysBefore`) and after (`keysLeftAfterExpiry`). Every fleet key must expire when idle:
 * `keysLeftAfterExpiry` must be 0 (split into `planKeysLeft`, the pre-warm plans' records,
 * and `otherKeysLeft`), and so `keysWithoutTtl` (keys left that would never expire).
 */
import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import { redisFleet } from "express-oral-assessments";
import { startEmulatorProcess } from "./lib/emulator.js";
import { cookieOf, startHost, studentOf } from "./lib/host.js";
import { sleep } from "./lib/stats.js";

/**
 * The short lifetimes (ms) this bench runs with, and why each is safe here. The longest
 * key life they allow is `idleForMs` below: the rate budget's window keys live
 * 10 windows after their last call, the platform facts (`meta`) as long.
 */
const TIMINGS = {
  rateWindowMs: 1_000, // the platform window the budget keeps (rate keys: 10 × it)
  outcomeTtlMs: 2_000, // an attempt's outcome
  attemptLeaseMs: 1_000,
  claimGraceMs: 500,
  planLeaseMs: 1_000,
  launchLimit: { burst: 3, refillMs: 1_000 }, // a student's fair share: kept refillMs × burst
  circuitBreaker: { windowMs: 1_000, openMs: 1_000, probeLeaseMs: 1_000 },
  // Tokens and plans: a finished plan is forgotten (in memory, and its input in Redis) keepFinishedMs after its end.
  prepare: { tokenTtlMs: 4_000, minTokenLifeMs: 1_000, keepAfterStartMs: 1_000, keepFinishedMs: 1_000 },
  planProgressTtlMs: 2_000, // a plan's progress and marks in Redis, after their last change
  organizationIdleMs: 1_000, // the router forgets an idle organization (its scope closes)
};
/** Idle this long after the last touch: past every lifetime above (the longest: 10 rate windows). */
const idleForMs = 15_000;

export async function runFleetOrganizations({ count = 200, redisUrl, log }) {
  const schools = Array.from({ length: count }, (_, i) => ({ id: `school-${String(i).padStart(3, "0")}`, name: `School ${i}` }));
  const emulator = await startEmulatorProcess({ organizations: schools });
  const prefix = `eoabenchorg${randomBytes(3).toString("hex")}`;
  const redis = new Redis(redisUrl);
  const fleet = redisFleet({
    url: redisUrl, secret: randomBytes(32).toString("base64url"), prefix, commandTimeoutMs: 2_000,
    rateLimitPerMinute: 1_000, rateWindowMs: TIMINGS.rateWindowMs, outcomeTtlMs: TIMINGS.outcomeTtlMs, attemptLeaseMs: TIMINGS.attemptLeaseMs,
    claimGraceMs: TIMINGS.claimGraceMs, planLeaseMs: TIMINGS.planLeaseMs, planProgressTtlMs: TIMINGS.planProgressTtlMs, launchLimit: TIMINGS.launchLimit, circuitBreaker: TIMINGS.circuitBreaker,
  });
  const byId = new Map(emulator.organizations.map((o) => [o.id, { apiKey: o.testKey, examHost: o.examHost }]));
  const host = await startHost(emulator, {
    organizationOf: (id) => byId.get(id),
    client: { timeoutMs: 10_000 },
    router: { fleet, organizationCache: { idleMs: TIMINGS.organizationIdleMs }, prepare: TIMINGS.prepare, waitingPageAfterMs: 5_000 },
  });
  try {
    await emulator.setRateLimits({ dev: 100_000, windowMs: 60_000 });
    log(`fleet organizations: touching ${count} organizations once each on a Redis fleet (prefix ${prefix})`);
    let failures = 0;
    // A step that fails (the machine is loaded: a reset connection) is counted, not fatal.
    const touch = ({ id }) => touchOnce(id).catch(() => { failures += 1; return undefined; });
    const touchOnce = async (id) => {
      const { examId } = await host.seedExam(`Exam of ${id}`, id);
      const res = await fetch(`${host.url}/oral/launch/${examId}`, { redirect: "manual", headers: { cookie: cookieOf("1", id) } });
      await res.text();
      if (res.status !== 303) failures += 1;
      const { email, firstName, lastName, orgInternalId } = studentOf(2);
      const posted = await host.instructor("POST", `/oral-assessments/${examId}/prepare`, { startAt: new Date(Date.now() + 2_000).toISOString(), roster: [{ email, firstName, lastName, orgInternalId }] }, id);
      if (posted.status !== 202) failures += 1;
      return examId;
    };
    const exams = [];
    for (let i = 0; i < schools.length; i += 20) exams.push(...(await Promise.all(schools.slice(i, i + 20).map(touch))));
    // Right after the last touch (the first organizations' short-lived keys may be gone already).
    const keysBefore = (await keysUnder(redis, prefix)).length;
    // Each roster's token was issued (ready, handed out, or stale by now: the plans are short),
    // read once the last plan's startAt (2 s after its touch) has passed.
    await sleep(2_500);
    const views = await Promise.all(schools.map(({ id }, i) => (exams[i] ? host.instructor("GET", `/oral-assessments/${exams[i]}/prepare`, undefined, id).catch(() => ({})) : {})));
    const prepared = views.filter(({ body }) => (body?.data?.ready ?? 0) + (body?.data?.handedOut ?? 0) + (body?.data?.expired ?? 0) >= 1).length;
    log(`fleet organizations: ${keysBefore} keys, ${prepared}/${count} rosters prepared, ${failures} failed steps; idle for ${idleForMs} ms`);
    await sleep(idleForMs);
    const left = await keysUnder(redis, prefix);
    const ttls = await Promise.all(left.map((k) => redis.pttl(k)));
    // A pre-warm plan's records (counted apart: they live longest, by default an hour past the
    // plan's end for its input, six hours for its progress and marks).
    const isPlan = (k) => k.startsWith(`${prefix}:plan:`) || k === `${prefix}:plans:active`;
    return {
      count,
      keysBefore,
      keysLeftAfterExpiry: left.length,
      planKeysLeft: left.filter(isPlan).length,
      otherKeysLeft: left.filter((k) => !isPlan(k)).length,
      keysWithoutTtl: ttls.filter((t) => t === -1).length,
      longestTtlLeftMs: Math.max(0, ...ttls),
      idleForMs,
      preparedRosters: prepared,
      failedSteps: failures,
      // The kinds of key left (the name without its hashes and organizations), to say what did not expire.
      leftKinds: [...new Set(left.map((k) => k.slice(prefix.length).replace(/@school-\d+\/[^}]*/g, "@…").replace(/[A-Za-z0-9_-]{16,}/g, "…")))],
    };
  } finally {
    await host.close();
    await fleet.close();
    const all = await keysUnder(redis, prefix);
    if (all.length > 0) await redis.del(...all);
    redis.disconnect();
    await emulator.close();
  }
}

async function keysUnder(redis, prefix) {
  const keys = [];
  let cursor = "0";
  do {
    const [next, batch] = await redis.scan(cursor, "MATCH", `${prefix}:*`, "COUNT", 1_000);
    keys.push(...batch);
    cursor = next;
  } while (cursor !== "0");
  return keys;
}
