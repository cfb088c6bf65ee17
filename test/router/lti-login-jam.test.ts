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
 * Printed as `[lti-login-jam] …`. Run on Express 5 only (vitest.config.ts): the flood
 * measures the limiter, and how the address is read through `trust proxy` on either
 * Express is lti-login-address.test.ts's.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startLtiBench, type LtiBench } from "../support/lti.js";
import { login } from "../support/lti-login.js";

const ATTACK_NETS = 24;
const ATTACK_LOGINS = 6_000;
const LEARNERS = 200;

/** An address in attacking /64 number `net`, its host part random (rotating within a /64 gains nothing). */
const attacker = (net: number) => `2001:db8:bad:${net.toString(16)}:${[0, 0, 0, 0].map(() => randomBytes(2).toString("hex")).join(":")}`;
/** Learner `i`'s address: half IPv4, half IPv6, each of its own. */
const learner = (i: number) => (i % 2 === 0 ? `198.51.${100 + (i >> 8)}.${i & 255}` : `2001:db8:1:${i.toString(16)}::1`);

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
