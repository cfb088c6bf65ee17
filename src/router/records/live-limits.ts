/**
 * How many live streams may be open at once: per user, per organization and per router
 * (one router per process is the usual set-up, so "per process"). A stream beyond a cap is
 * refused with 429 problem+json and `Retry-After`, before any snapshot is computed.
 */
import type { Request } from "express";
import { studentFromUser } from "../../identity/student-from-user.js";
import type { Problem } from "../shared/problem.js";
import { userOf } from "../shared/user.js";

/** The `live` option's caps, by the option's names. */
export interface LiveLimitSettings {
  maxStreamsPerUser: number;
  maxStreamsPerOrganization: number;
  maxStreams: number;
}

/** Seconds a refused stream is told to wait: streams do not free on a schedule, so a guess. */
const RETRY_AFTER_S = 30;

export class LiveStreamLimits {
  private total = 0;
  private readonly counts = new Map<string, number>();

  constructor(private readonly limits: LiveLimitSettings) {}

  /** Streams open now, every organization. */
  get open(): number {
    return this.total;
  }

  /** Takes a place for a stream: a release function, or the 429 to answer. */
  take(organization: string, req: Request): (() => void) | Problem {
    const user = `u\u0000${organization}\u0000${userKey(req)}`;
    const org = `o\u0000${organization}`;
    const { maxStreamsPerUser, maxStreamsPerOrganization, maxStreams } = this.limits;
    const over = (this.counts.get(user) ?? 0) >= maxStreamsPerUser ? ["maxStreamsPerUser", maxStreamsPerUser, "you have"]
      : (this.counts.get(org) ?? 0) >= maxStreamsPerOrganization ? ["maxStreamsPerOrganization", maxStreamsPerOrganization, "this organization has"]
        : this.total >= maxStreams ? ["maxStreams", maxStreams, "this server has"] : undefined;
    if (over) {
      return {
        status: 429, code: "too_many_streams", title: "Too many live views open",
        detail: `${over[2]} ${over[1]} live views open (live.${over[0]}): close one, or poll the JSON snapshot instead.`,
        retryAfter: RETRY_AFTER_S,
      };
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
