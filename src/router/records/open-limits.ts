/**
 * How many long answers of one kind may be open at once: per user, per organization and
 * per router (one router per process is the usual set-up, so "per process"). Live views'
 * event streams (the `live` option) and launch-record exports (`launchExports`) each have
 * their own count. An answer beyond a cap is refused with 429 problem+json and
 * `Retry-After`, before anything is read from the store.
 */
import type { Request } from "express";
import { studentFromUser } from "../../identity/student-from-user.js";
import type { Problem } from "../shared/problem.js";
import { userOf } from "../shared/user.js";

/** The three caps, and how a refusal names them and what to do instead. */
export interface OpenLimitRules {
  perUser: number;
  perOrganization: number;
  perRouter: number;
  /** The option's and its fields' names, for the refusal's detail: `["live", "maxStreamsPerUser", …]`. */
  names: readonly [option: string, perUser: string, perOrganization: string, perRouter: string];
  /** What is counted, plural ("live views"); the problem's `code` and `title`. */
  what: string;
  code: string;
  title: string;
  /** What the refused client can do, the end of the detail. */
  instead: string;
  /** Seconds a refused client is told to wait (`Retry-After`): places do not free on a schedule, so a guess. */
  retryAfterS: number;
}

export class OpenLimits {
  private total = 0;
  private readonly counts = new Map<string, number>();

  constructor(private readonly rules: OpenLimitRules) {}

  /** Places taken now, every organization. */
  get open(): number {
    return this.total;
  }

  /** Takes a place: a release function (safe to call twice), or the 429 to answer. */
  take(organization: string, req: Request): (() => void) | Problem {
    const user = `u\u0000${organization}\u0000${userKey(req)}`;
    const org = `o\u0000${organization}`;
    const { perUser, perOrganization, perRouter, names: [option, userCap, orgCap, routerCap] } = this.rules;
    const over = (this.counts.get(user) ?? 0) >= perUser ? [userCap, perUser, "you have"] as const
      : (this.counts.get(org) ?? 0) >= perOrganization ? [orgCap, perOrganization, "this organization has"] as const
        : this.total >= perRouter ? [routerCap, perRouter, "this server has"] as const : undefined;
    if (over) {
      const { code, title, what, instead, retryAfterS } = this.rules;
      return { status: 429, code, title, detail: `${over[2]} ${over[1]} ${what} open (${option}.${over[0]}): ${instead}`, retryAfter: retryAfterS };
    }
    this.bump(user, 1);
    this.bump(org, 1);
    this.total += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.bump(user, -1);
      this.bump(org, -1);
      this.total -= 1;
    };
  }

  private bump(key: string, by: number): void {
    const n = (this.counts.get(key) ?? 0) + by;
    if (n > 0) this.counts.set(key, n);
    else this.counts.delete(key);
  }
}

/** The signed-in user, as one string: their id, else their e-mail, else their user name. */
function userKey(req: Request): string {
  const user = userOf(req);
  const fields = studentFromUser(user);
  return fields?.orgInternalId ?? fields?.email ?? String(user?.username ?? "");
}
