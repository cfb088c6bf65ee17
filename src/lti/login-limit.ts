/**
 * The LTI login's rate limits: `GET`/`POST /lti/login` needs no sign-in (only a public
 * issuer), and each accepted login keeps a state until its launch, so logins are counted
 * per client address (`req.ip`: set Express's `trust proxy` behind a proxy) and per
 * registration, fleet-wide in fleet mode (the fleet's token buckets, `Fleet.limiter`).
 * A login past either limit keeps nothing and gets a 429 page with `Retry-After`.
 *
 * What the limits bound: the states a registration can hold at once are at most
 * `perRegistration.burst + stateWait / perRegistration.refillMs` (defaults: 3,000 + 300 s at
 * 50 a second = 18,000, about 15 MB of Redis at their largest; see docs/lti.md).
 */
import { nested, wholeNumber, withDefault, type OptionsOf } from "../core/option-schema.js";
import type { Fleet } from "../fleet/fleet.js";
import type { LaunchLimiter, LaunchLimitSettings } from "../fleet/launch-limiter.js";

/**
 * A token bucket: `burst` logins at once, then one more every `refillMs`. Per address: a
 * school behind one NAT address launching a whole year group at once (600 students, then
 * 600 a minute) passes. Per registration (one LMS, usually one school): 3,000 at once, then
 * 50 a second (3,000 a minute).
 */
const bucketSchema = (burst: number, refillMs: number) => nested({
  burst: withDefault(wholeNumber(1), burst),
  refillMs: withDefault(wholeNumber(1, undefined, "ms"), refillMs),
});
/** `lti.loginLimit` as a schema: two buckets, each field defaulted on its own. */
export const loginLimitSchema = { perAddress: bucketSchema(600, 100), perRegistration: bucketSchema(3000, 20) };

/** The whole `lti.loginLimit` option, a field of the `lti` option's parts (settings.ts). */
export const loginLimitOption = nested(loginLimitSchema);

export type LoginLimitSettings = OptionsOf<typeof loginLimitSchema>;
export type LoginBucket = LoginLimitSettings["perAddress"];

export interface LoginLimitDecision {
  allowed: boolean;
  /** When refused: which limit, and ms until the next login would pass. */
  scope?: "address" | "registration";
  retryAfterMs: number;
}

const bucket = (b: LoginBucket): LaunchLimitSettings => ({ ...b, failureBackoffMs: 0, maxFailureBackoffMs: 0 });

/** The two limits, on the fleet's buckets. A refused login counts against neither. */
export class LoginLimits {
  private readonly byAddress: LaunchLimiter;
  private readonly byRegistration: LaunchLimiter;

  constructor(fleet: Pick<Fleet, "limiter">, settings: LoginLimitSettings) {
    this.byAddress = fleet.limiter("lti-login-address", bucket(settings.perAddress));
    this.byRegistration = fleet.limiter("lti-login-registration", bucket(settings.perRegistration));
  }

  /** Before the registration is looked up: this address's bucket only. */
  async address(ip: string): Promise<LoginLimitDecision> {
    const d = await this.byAddress.check("address", addressKey(ip));
    return d.allowed ? { allowed: true, retryAfterMs: 0 } : { allowed: false, scope: "address", retryAfterMs: d.retryAfterMs };
  }

  /** The registration's bucket; when it passes, the login counts against both. */
  async registrationAndCount(ip: string, issuer: string, clientId: string): Promise<LoginLimitDecision> {
    const who = `${issuer}\u0000${clientId}`;
    const d = await this.byRegistration.check("registration", who);
    if (!d.allowed) return { allowed: false, scope: "registration", retryAfterMs: d.retryAfterMs };
    await Promise.all([this.byAddress.record("address", addressKey(ip)), this.byRegistration.record("registration", who)]);
    return { allowed: true, retryAfterMs: 0 };
  }
}

/**
 * The bucket an address counts against: an IPv4 address itself (an IPv4-mapped IPv6 one
 * too); an IPv6 address by its /64, the block one host or home network usually gets, so
 * rotating addresses within it gains nothing.
 */
export function addressKey(ip: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped) return mapped[1]!;
  if (!ip.includes(":")) return ip;
  const [head = "", tail = ""] = ip.split("%")[0]!.split("::");
  const left = head ? head.split(":") : [];
  const right = ip.includes("::") ? (tail ? tail.split(":") : []) : [];
  const groups = [...left, ...Array<string>(Math.max(0, 8 - left.length - right.length)).fill("0"), ...right];
  return `${groups.slice(0, 4).map((g) => g.toLowerCase().replace(/^0+(?=.)/, "")).join(":")}::/64`;
}
