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
import type { ProblemList } from "../../core/configuration-error.js";
import type { Rename } from "../../core/deprecation.js";
import { nested, optional, wholeNumber, withDefault } from "../../core/option-schema.js";
import type { Fleet } from "../../fleet/fleet.js";
import type { LaunchLimiter, LaunchLimitSettings } from "../../fleet/launch-limiter.js";
import type { SingleUseStore } from "../../fleet/single-use.js";

/**
 * A token bucket: `burst` logins at once, then one more every `refillMs`. Per address: a
 * school behind one NAT address launching a whole year group at once (600 students, then
 * 600 a minute) passes.
 */
const bucket = (burst: number, refillMs: number) => ({
  burst: withDefault(wholeNumber(1), burst),
  refillMs: withDefault(wholeNumber(1, undefined, "ms"), refillMs),
});
/** An earlier spelling's bucket: checked as before, undefined when left out. */
const earlierBucket = (burst: number, refillMs: number, fix: string) => optional(nested(bucket(burst, refillMs)).unwrap(), { fix });

/**
 * `lti.loginLimit` as a schema: the per-address bucket's `burst` and `refillMs`. The
 * earlier spellings are still read (and checked): `perAddress` (this bucket, one level
 * down) and `perRegistration`, which no longer does anything (`LOGIN_LIMIT_RENAMES`).
 */
export const loginLimitSchema = {
  ...bucket(600, 100),
  perAddress: earlierBucket(600, 100, "Write lti.loginLimit: { burst, refillMs } instead (perAddress is deprecated)."),
  perRegistration: earlierBucket(3000, 20, "Leave it out: it does nothing (logins are limited per client address only)."),
};

/** The whole `lti.loginLimit` option, a field of the `lti` option's parts (settings.ts). */
export const loginLimitOption = nested(loginLimitSchema, {}, { notObject: "must be an object { burst, refillMs }." });

/**
 * `lti.loginLimit`: logins accepted per client address (`req.ip`: set Express's `trust
 * proxy` behind a proxy; IPv6 by /64), fleet-wide in fleet mode: `burst` at once, then one
 * more every `refillMs`. A login past it gets a 429 page, unless its address completed a
 * launch within the hour. Never per registration: anyone could drain that.
 */
export interface LtiLoginLimitOptions {
  /** Logins at once from one address. Default 600 (a year group behind one school address). */
  burst?: number;
  /** One more login every this long, ms. Default 100 (600 a minute). */
  refillMs?: number;
  /**
   * @deprecated Write `burst` and `refillMs` on `loginLimit` itself (`{ burst, refillMs }`):
   * the same limit, one level up. Still read, with one warning at start-up; beside them, a
   * configuration error.
   */
  perAddress?: { burst?: number; refillMs?: number };
  /**
   * @deprecated Does nothing: logins are limited per client address only (a registration's
   * total is something anyone could drain). Still accepted, with one warning at start-up: leave it out.
   */
  perRegistration?: { burst?: number; refillMs?: number };
}

/** The per-address bucket, whichever spelling gave it. */
export type LoginLimitSettings = Pick<LaunchLimitSettings, "burst" | "refillMs">;

/** `lti.loginLimit`'s earlier spellings (warned about at start-up by the router's settings). */
export const LOGIN_LIMIT_RENAMES: Rename[] = [
  { old: "perAddress", use: "burst", instead: "lti.loginLimit.burst and lti.loginLimit.refillMs", code: "EOA_LTI_LOGIN_PER_ADDRESS",
    message: "oralAssessments()'s lti.loginLimit.perAddress is deprecated: write its burst and refillMs on lti.loginLimit itself (lti.loginLimit: { burst, refillMs }, the same limit)." },
  { old: "perRegistration", use: "burst", instead: "nothing (leave it out)", code: "EOA_LTI_LOGIN_PER_REGISTRATION",
    message: "oralAssessments()'s lti.loginLimit.perRegistration is deprecated and does nothing: logins are limited per client address only (lti.loginLimit: { burst, refillMs }), since a registration's total is something anyone could drain. Leave it out." },
];

/**
 * The bucket `lti.loginLimit` gives (`read`: as the schema read it): its own `burst` and
 * `refillMs`, or the deprecated `perAddress`'s. Both spellings at once is a problem.
 */
export function foldLoginLimit(given: unknown, read: { burst: number; refillMs: number; perAddress?: LoginLimitSettings | undefined }, problems: ProblemList): LoginLimitSettings {
  const g = (typeof given === "object" && given !== null ? given : {}) as Record<string, unknown>;
  // Checked as given, so it is listed even when another field of loginLimit is wrong too.
  if (g.perAddress !== undefined && (g.burst !== undefined || g.refillMs !== undefined)) {
    problems.add("lti.loginLimit.perAddress", "is the deprecated spelling of lti.loginLimit's own burst and refillMs, and both are set.", "Keep only lti.loginLimit: { burst, refillMs }.");
  }
  return read.perAddress ?? { burst: read.burst, refillMs: read.refillMs };
}

/** How long an address that completed a launch is never refused a login: 1 hour. */
export const RECENT_LAUNCH_MS = 3_600_000;

export interface LoginLimitDecision {
  allowed: boolean;
  /** When refused: ms until the next login from this address would pass. */
  retryAfterMs: number;
}

const limiterBucket = (b: LoginLimitSettings): LaunchLimitSettings => ({ ...b, failureBackoffMs: 0, maxFailureBackoffMs: 0 });
const launchedKey = (ip: string) => `lti-launched:${addressKey(ip)}`;

/** The per-address limit, on the fleet's buckets; the addresses that launched recently in the fleet's single-use store. */
export class LoginLimits {
  private readonly byAddress: LaunchLimiter;

  constructor(fleet: Pick<Fleet, "limiter">, private readonly recent: SingleUseStore, settings: LoginLimitSettings) {
    this.byAddress = fleet.limiter("lti-login-address", limiterBucket(settings));
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
