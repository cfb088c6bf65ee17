/**
 * The LTI login's rate limit: `GET`/`POST /lti/login` needs no sign-in (only a public
 * issuer and client id), so logins are counted per client address (`req.ip`: set
 * Express's `trust proxy` behind a proxy; IPv6 by its /64), fleet-wide in fleet mode (the
 * fleet's token buckets, `Fleet.limiter`). A login past it gets a 429 page with
 * `Retry-After`, unless its address completed a launch within `RECENT_LAUNCH_MS` (an LMS
 * signed that launch: a school's own address is never refused because someone else
 * shares its bucket).
 *
 * Never per registration: the issuer is public and the client id is in every login URL,
 * so a registration's total is something any outsider could drain, locking that LMS's
 * learners out. A login keeps nothing (login-state.ts: its state is sealed into the
 * `state` parameter), so there is no registration-wide store to bound either.
 */
import { nested, wholeNumber, withDefault, type OptionsOf } from "../../core/option-schema.js";
import type { Fleet } from "../../fleet/fleet.js";
import type { LaunchLimiter, LaunchLimitSettings } from "../../fleet/launch-limiter.js";
import type { SingleUseStore } from "../../fleet/single-use.js";

/**
 * A token bucket: `burst` logins at once, then one more every `refillMs`. Per address: a
 * school behind one NAT address launching a whole year group at once (600 students, then
 * 600 a minute) passes.
 */
const bucketSchema = (burst: number, refillMs: number) => nested({
  burst: withDefault(wholeNumber(1), burst),
  refillMs: withDefault(wholeNumber(1, undefined, "ms"), refillMs),
});
/**
 * `lti.loginLimit` as a schema. `perRegistration` is read (and checked) but no longer used:
 * a start-up warning says so (router/settings.ts).
 */
export const loginLimitSchema = { perAddress: bucketSchema(600, 100), perRegistration: bucketSchema(3000, 20) };

/** The whole `lti.loginLimit` option, a field of the `lti` option's parts (settings.ts). */
export const loginLimitOption = nested(loginLimitSchema);

export type LoginLimitSettings = OptionsOf<typeof loginLimitSchema>;
export type LoginBucket = LoginLimitSettings["perAddress"];

/** How long an address that completed a launch is never refused a login: 1 hour. */
export const RECENT_LAUNCH_MS = 3_600_000;

export interface LoginLimitDecision {
  allowed: boolean;
  /** When refused: ms until the next login from this address would pass. */
  retryAfterMs: number;
}

const bucket = (b: LoginBucket): LaunchLimitSettings => ({ ...b, failureBackoffMs: 0, maxFailureBackoffMs: 0 });
const launchedKey = (ip: string) => `lti-launched:${addressKey(ip)}`;

/** The per-address limit, on the fleet's buckets; the addresses that launched recently in the fleet's single-use store. */
export class LoginLimits {
  private readonly byAddress: LaunchLimiter;

  constructor(fleet: Pick<Fleet, "limiter">, private readonly recent: SingleUseStore, settings: LoginLimitSettings) {
    this.byAddress = fleet.limiter("lti-login-address", bucket(settings.perAddress));
  }

  /** Whether a login from `ip` may go on: within its address's bucket, or from an address that launched recently. */
  async address(ip: string): Promise<LoginLimitDecision> {
    const d = await this.byAddress.check("address", addressKey(ip));
    if (d.allowed || (await this.recent.peek(launchedKey(ip))) !== undefined) return { allowed: true, retryAfterMs: 0 };
    return { allowed: false, retryAfterMs: d.retryAfterMs };
  }

  /** A login for a registration this tool has: it counts against its address. */
  async count(ip: string): Promise<void> {
    await this.byAddress.record("address", addressKey(ip));
  }

  /** A launch the LMS signed came from `ip`: its address is not refused a login for `RECENT_LAUNCH_MS`. */
  launched(ip: string): Promise<void> {
    return this.recent.put(launchedKey(ip), "1", RECENT_LAUNCH_MS);
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
