/**
 * The LTI login's per-address limit (issue 43): logins are refused per client address only
 * (IPv6 by /64, an IPv4-mapped address as its IPv4 address), and an address that completed
 * a launch within the hour is never refused; across a Redis fleet an address's bucket is
 * shared. Client addresses come from X-Forwarded-For through Express's `trust proxy` (the
 * host app trusts its loopback proxy), so this file runs on Express 4 and 5. (The flood no
 * outsider can jam the login with: lti-login-jam.test.ts.)
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fleetReady, redisFleet } from "../../src/fleet/index.js";
import { formFields, linkCourse, startLtiBench, type LtiBench } from "../support/lti.js";
import { login } from "../support/lti-login.js";
import { dropPrefix, randomPrefix, REDIS_URL, redisOrSkip, SECRET } from "../support/redis.js";

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
