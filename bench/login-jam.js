/**
 * The login jam (issue 43): an outsider needs only the LMS's issuer and a client id (in
 * every login URL) to send logins, so a limit on a registration's total would let anyone
 * lock that LMS's learners out. `nets` IPv6 /64s (default 24, the host part random per
 * login) send `ratePerSecond` logins a second between them (default 300) for `seconds`
 * (default 20), paced, not waiting for answers; meanwhile learners from other addresses
 * (one each, half IPv4, half IPv6) log in `learnersPerSecond` a second (default 10), and
 * 100 more once the flood ends. The router runs with its default limits, in a process of
 * its own (login-flood-host.js with `trust proxy: loopback`: X-Forwarded-For names each
 * client, as behind a proxy). Reported: the attack's statuses and achieved rate, the
 * learners' statuses and the share that got their login (a 302 to the LMS; target ≥ 99 %).
 */
import { randomBytes } from "node:crypto";
import { URLSearchParams } from "node:url";
import { round } from "./lib/stats.js";

const attacker = (net) => `2001:db8:bad:${net.toString(16)}:${[0, 0, 0, 0].map(() => randomBytes(2).toString("hex")).join(":")}`;
const learner = (i) => (i % 2 === 0 ? `198.51.${100 + (i >> 8)}.${i & 255}` : `2001:db8:1:${i.toString(16)}::1`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** One login from `ip` as the LMS's redirect makes a browser send it; its status (0: no answer). */
async function login(url, registration, ip, userId) {
  const query = new URLSearchParams({ iss: registration.issuer, client_id: registration.clientId, login_hint: userId, target_link_uri: url.replace(/\/login$/, "/launch"), lti_message_hint: "link" });
  try {
    const res = await fetch(`${url}?${query}`, { redirect: "manual", headers: { "x-forwarded-for": ip } });
    await res.arrayBuffer();
    return res.status;
  } catch {
    return 0;
  }
}

const count = (into, status) => { into[status] = (into[status] ?? 0) + 1; };

/** `url`: the host's `/oral/lti/login`; `registration`: the LMS's `{ issuer, clientId }`. */
export async function runLoginJam(url, registration, { nets = 24, ratePerSecond = 300, seconds = 20, learnersPerSecond = 10, after = 100, log }) {
  const attack = {};
  const learners = {};
  const pending = [];
  const total = ratePerSecond * seconds;
  const started = performance.now();
  let sent = 0;
  let learnersSent = 0;
  log(`login jam: ${nets} /64s, ${ratePerSecond} logins/s for ${seconds} s; learners from other addresses ${learnersPerSecond}/s, then ${after} more`);
  // Paced on the clock: each 10 ms tick sends what the rate owes by then, without waiting for answers.
  while (sent < total) {
    const elapsed = (performance.now() - started) / 1000;
    const due = Math.min(total, Math.floor(elapsed * ratePerSecond));
    for (; sent < due; sent++) pending.push(login(url, registration, attacker(sent % nets), `x${sent}`).then((s) => count(attack, s)));
    const learnersDue = Math.floor(elapsed * learnersPerSecond);
    for (; learnersSent < learnersDue; learnersSent++) pending.push(login(url, registration, learner(learnersSent), `student-${learnersSent}`).then((s) => count(learners, s)));
    await sleep(10);
  }
  const floodSeconds = (performance.now() - started) / 1000;
  await Promise.all(pending);
  const answeredSeconds = (performance.now() - started) / 1000;
  for (let i = 0; i < after; i++) count(learners, await login(url, registration, learner(learnersSent + i), `student-after-${i}`));
  const learnerLogins = learnersSent + after;
  const got = learners[302] ?? 0;
  const out = {
    nets, ratePerSecond, seconds, attackLogins: total, attackStatuses: attack,
    attackRatePerSecond: round(total / floodSeconds, 0), answeredInSeconds: round(answeredSeconds, 1),
    learnerLogins, learnerStatuses: learners, learnersGotLoginPercent: round((100 * got) / learnerLogins, 1),
  };
  log(`login jam: attack ${JSON.stringify(attack)} at ${out.attackRatePerSecond}/s (all answered in ${out.answeredInSeconds} s); learners ${JSON.stringify(learners)}: ${out.learnersGotLoginPercent} % got their login`);
  return out;
}
