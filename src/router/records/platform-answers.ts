/**
 * The platform's 429s and errors for one organization's key, counted as every request
 * comes back (each HTTP attempt: a 429 waited out and retried counts, as the platform
 * saw it) into the fleet's recent counts, so the live view reads the last five minutes
 * fleet-wide. Errors are 5xx answers and requests with no answer (timeout, reset,
 * network); a 4xx other than 429 is the request's fault, not the platform's.
 */
import type { RecentCounts } from "../../fleet/recent-counts.js";
import { followPlatformCalls, type PlatformCallEvent } from "../../platform/call-observer.js";
import type { PlatformClient } from "../../platform/types.js";

export interface PlatformAnswers {
  /** Over the last `windowMs`, fleet-wide. */
  recent(windowMs: number): Promise<{ platform429: number; platformErrors: number }>;
  /** The client was swapped (a rotated key): observe the new one. */
  rewire(): void;
  close(): void;
}

/** `platform`: live (after a key rotation it answers for the new client). */
export function platformAnswers(platform: PlatformClient, counts: RecentCounts, organization: string): PlatformAnswers {
  const name = (what: string) => `${organization}:${what}`;
  const key = {};
  const observer = (event: PlatformCallEvent) => {
    const what = event.status === 429 ? "platform429" : event.status === undefined ? (event.failure === "aborted" ? undefined : "platformErrors") : event.status >= 500 ? "platformErrors" : undefined;
    if (what) void counts.add(name(what)).catch(() => undefined);
  };
  const calls = followPlatformCalls(platform, key, observer);
  return {
    async recent(windowMs) {
      const [platform429, platformErrors] = await Promise.all([counts.sum(name("platform429"), windowMs), counts.sum(name("platformErrors"), windowMs)]);
      return { platform429, platformErrors };
    },
    rewire: () => calls.rewire(),
    close: () => calls.close(),
  };
}
