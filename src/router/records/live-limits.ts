/**
 * How many live streams may be open at once: per user, per organization and per router
 * (one router per process is the usual set-up, so "per process"). A stream beyond a cap is
 * refused with 429 problem+json and `Retry-After`, before any snapshot is computed.
 */
import { OpenLimits } from "./open-limits.js";

/** The `live` option's caps, by the option's names. */
export interface LiveLimitSettings {
  maxStreamsPerUser: number;
  maxStreamsPerOrganization: number;
  maxStreams: number;
}

export class LiveStreamLimits extends OpenLimits {
  constructor({ maxStreamsPerUser, maxStreamsPerOrganization, maxStreams }: LiveLimitSettings) {
    super({
      perUser: maxStreamsPerUser, perOrganization: maxStreamsPerOrganization, perRouter: maxStreams,
      names: ["live", "maxStreamsPerUser", "maxStreamsPerOrganization", "maxStreams"],
      what: "live views", code: "too_many_streams", title: "Too many live views open",
      instead: "close one, or poll the JSON snapshot instead.", retryAfterS: 30,
    });
  }
}
