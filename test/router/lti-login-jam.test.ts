/**
 * No outsider can jam the LTI login (issue 43): `/lti/login` needs only a public issuer
 * and a client id that is in every login URL, so a limit on a registration's total would
 * be a lock anyone could close on that LMS's learners. Logins are refused per client
 * address only (IPv6 by /64), and an address that completed a launch within the hour is
 * never refused. Client addresses come from X-Forwarded-For (the host app trusts its
 * loopback proxy), as behind a school's or a cloud's proxy.
 *
 * The flood here: 24 IPv6 /64s send 6,000 logins as fast as they can (250 each: within the
 * default per-address burst, so nothing refuses them), while and after which 200 learners
 * from other addresses log in: ≥ 99 % must get their login. A per-registration bucket at
 * the old defaults (3,000, then 50 a second) would refuse most of them. The bench runs the
 * issue's figure (300 logins a second for 20 s: `npm run bench -- --only loginFlood`).
 * Printed as `[lti-login-jam] …`.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fleetReady, redisFleet } from "../../src/fleet/index.js";
import { formFields, linkCourse, startLtiBench, type LtiBench } from "../support/lti.js";
import { dropPrefix, randomPrefix, REDIS_URL, redisOrSkip, SECRET } from "../support/redis.js";

const ATTACK_NETS = 24;
const ATTACK_LOGINS = 6_000;
const LEARNERS = 200;

/** An address in attacking /64 number `net`, its host part random (rotating within a /64 gains nothing). */
const attacker = (net: number) => `2001:db8:bad:${net.toString(16)}:${[0, 0, 0, 0].map(() => randomBytes(2).toString("hex")).join(":")}`;
/** Learner `i`'s address: half IPv4, half IPv6, each of its own. */
const learner = (i: number) => (i % 2 === 0 ? `198.51.${100 + (i >> 8)}.${i & 255}` : `2001:db8:1:${i.toString(16)}::1`);

/** One login (as the LMS's redirect makes the browser send it) from `ip`: the tool's status, and its location when it sent the browser on. */
async function login(bench: LtiBench, ip: string, userId = "student-1", cookie?: string): Promise<{ status: number; location: string | null; cookie: string | undefined }> {
  const url = bench.lms.loginUrl(userId, bench.linkId);
  const res = await fetch(url, { redirect: "manual", headers: { "x-forwarded-for": ip, ...(cookie ? { cookie } : {}) } });
  await res.arrayBuffer();
  return { status: res.status, location: res.headers.get("location"), cookie: res.headers.get("set-cookie")?.split(";")[0] };
}

/** A learner's whole launch from `ip`: login, the LMS's answer, the launch post, all from that address. */
async function launchFrom(bench: LtiBench, ip: string, userId: string): Promise<number> {
  const first = await login(bench, ip, userId);
  expect(first.status).toBe(302);
  const auth = await fetch(first.location!);
  const fields = formFields(await auth.text());
  const launch = await fetch(`${bench.stack.app.url}/oral/lti/launch`, {
    method: "POST", redirect: "manual", body: new URLSearchParams({ id_token: fields.id_token!, state: fields.state! }),
    headers: { "x-forwarded-for": ip, cookie: first.cookie! },
  });
  await launch.arrayBuffer();
  return launch.status;
}

describe("an outsider cannot jam the LTI login", () => {
  let bench: LtiBench;
  beforeAll(async () => {
    // The default limits: what a school runs.
    bench = await startLtiBench({}, { trustProxy: "loopback" });
  });
  afterAll(async () => { await bench.close(); });

  it(`${ATTACK_NETS} /64s sending ${ATTACK_LOGINS} logins: ≥ 99 % of ${LEARNERS} learners from other addresses get their login, during the flood and after`, async () => {
    const attack: Record<number, number> = {};
    const learners: Record<number, number> = {};
    let sent = 0;
    const started = Date.now();
    const count = (into: Record<number, number>, status: number) => { into[status] = (into[status] ?? 0) + 1; };
    const learnersFrom = async (from: number, to: number) => {
      for (let i = from; i < to; i++) count(learners, (await login(bench, learner(i), `student-${i}`)).status);
    };
    let during: Promise<void> | undefined;
    await Promise.all(Array.from({ length: ATTACK_NETS }, async (_, net) => {
      while (sent < ATTACK_LOGINS) {
        sent++;
        // Half the learners log in while the flood runs, once it has sent more than the old registration burst.
        if (sent === 3_500) during = learnersFrom(0, LEARNERS / 2);
        count(attack, (await login(bench, attacker(net), `x${sent}`)).status);
      }
    }));
    const floodMs = Date.now() - started;
    await during;
    await learnersFrom(LEARNERS / 2, LEARNERS);
    const got = learners[302] ?? 0;
    console.log(`[lti-login-jam] ${ATTACK_NETS} /64s sent ${ATTACK_LOGINS} logins in ${(floodMs / 1000).toFixed(1)} s (${Math.round(ATTACK_LOGINS / (floodMs / 1000))}/s, ${JSON.stringify(attack)}); learners from other addresses: ${JSON.stringify(learners)}, ${(100 * got / LEARNERS).toFixed(1)} % got their login`);
    expect(got / LEARNERS).toBeGreaterThanOrEqual(0.99);
  }, 300_000);
});

describe("the per-address limit", () => {
  let bench: LtiBench;
  beforeAll(async () => {
    bench = await startLtiBench({ loginLimit: { burst: 3, refillMs: 3_600_000 } }, { trustProxy: "loopback" });
    await linkCourse(bench);
  });
  afterAll(async () => { await bench.close(); });

  it("counts an IPv6 address by its /64: rotating the host part gains nothing; another /64 has its own", async () => {
    const statuses = [];
    for (let i = 1; i <= 5; i++) statuses.push((await login(bench, `2001:db8:77:1::${i}`)).status);
    expect(statuses).toEqual([302, 302, 302, 429, 429]);
    expect((await login(bench, "2001:db8:77:2::1")).status).toBe(302);
  });

  it("counts an IPv4-mapped IPv6 address as its IPv4 address; two mapped addresses are two buckets", async () => {
    const statuses = [];
    for (const ip of ["::ffff:203.0.113.5", "::FFFF:203.0.113.5", "203.0.113.5", "203.0.113.5"]) statuses.push((await login(bench, ip)).status);
    expect(statuses).toEqual([302, 302, 302, 429]);
    expect((await login(bench, "::ffff:203.0.113.6")).status).toBe(302);
  });

  it("never refuses an address that completed a launch within the hour; another address past its burst is refused", async () => {
    const school = "192.0.2.10";
    expect(await launchFrom(bench, school, "student-1")).toBe(200);
    const statuses = [];
    for (let i = 0; i < 6; i++) statuses.push((await login(bench, school)).status);
    expect(statuses).toEqual([302, 302, 302, 302, 302, 302]);
    const other = [];
    for (let i = 0; i < 5; i++) other.push((await login(bench, "192.0.2.20")).status);
    expect(other).toEqual([302, 302, 302, 429, 429]);
  });
});

const redisAvailable = await redisOrSkip("the LTI login limit across a Redis fleet");

describe.runIf(redisAvailable)("the per-address limit across a Redis fleet", () => {
  const prefix = randomPrefix("lti-jam");
  const fleets = [redisFleet({ url: REDIS_URL, secret: SECRET, prefix }), redisFleet({ url: REDIS_URL, secret: SECRET, prefix })];
  let a: LtiBench;
  let b: LtiBench;
  beforeAll(async () => {
    await Promise.all(fleets.map((f) => fleetReady(f)));
    const limit = { burst: 4, refillMs: 3_600_000 };
    a = await startLtiBench({ loginLimit: limit }, { router: { fleet: fleets[0] }, trustProxy: "loopback" });
    // The second instance serves the first one's LMS registration.
    b = await startLtiBench({ loginLimit: limit, registrations: [a.lms.registration()] }, { router: { fleet: fleets[1] }, trustProxy: "loopback" });
  });
  afterAll(async () => {
    await a.close();
    await b.close();
    await Promise.all(fleets.map((f) => f.close()));
    await dropPrefix(prefix);
  });

  it("an address's bucket is shared by the instances; 30 addresses' logins of one registration are never refused for their total", async () => {
    const on = (bench: LtiBench, ip: string) => fetch(`${bench.stack.app.url}/oral/lti/login?${new URL(a.lms.loginUrl("s", a.linkId)).searchParams}`, { redirect: "manual", headers: { "x-forwarded-for": ip } }).then((r) => r.status);
    const one = "203.0.113.7";
    expect([await on(a, one), await on(a, one), await on(b, one), await on(b, one), await on(a, one), await on(b, one)]).toEqual([302, 302, 302, 302, 429, 429]);
    const many = await Promise.all(Array.from({ length: 30 }, (_, i) => Promise.all([0, 1, 2, 3].map((j) => on(j % 2 ? a : b, `203.0.113.${100 + i}`)))));
    expect(many.flat().every((s) => s === 302)).toBe(true);
  });
});
