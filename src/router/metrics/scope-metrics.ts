/**
 * One organization's part of the metrics: counts its launches, observes its platform
 * client's requests and reports its gauges at scrape time, until its scope closes.
 */
import { followPlatformCalls, type PlatformCallEvent } from "../../platform/call-observer.js";
import type { PlatformClient } from "../../platform/types.js";
import type { ExamKind, LaunchServedBy, LaunchVia } from "../../store/types.js";
import type { GaugeSnapshot, Instruments } from "./instruments.js";

/** Counts one launch answer; no await, no I/O. */
export type CountLaunch = (kind: ExamKind, via: LaunchVia, outcome: string, servedBy: LaunchServedBy, seconds: number) => void;

export interface ScopeMetrics {
  readonly countLaunch: CountLaunch;
  /** The organization's client changed (a rotated key): observe the new one. */
  rewire(): void;
  close(): void;
}

export interface ScopeMetricsInput {
  organization: string;
  /** Live: after a key rotation it answers for the new client. */
  platform: PlatformClient;
  snapshot: () => Omit<GaugeSnapshot, "organization">;
}

export function scopeMetrics(instruments: Instruments, { organization, platform, snapshot }: ScopeMetricsInput): ScopeMetrics {
  const org: Record<string, string> = instruments.organizationLabel ? { organization } : {};
  const observer = (event: PlatformCallEvent) => {
    instruments.platformRequests.inc({ method: event.method, endpoint: event.endpoint, status: String(event.status ?? event.failure), ...org });
    if (event.status === 429) instruments.platformRateLimited.inc(org);
  };
  // Keyed by the instruments: two routers counting on one registry with one client count its requests once.
  const calls = followPlatformCalls(platform, instruments, observer);
  const source = () => ({ organization, ...snapshot() });
  instruments.sources.add(source);
  return {
    countLaunch(kind, via, outcome, servedBy, seconds) {
      instruments.launches.inc({ kind, via, outcome, served_by: servedBy, ...org });
      instruments.launchSeconds.observe({ served_by: servedBy, ...org }, seconds);
    },
    rewire: () => calls.rewire(),
    close() {
      calls.close();
      instruments.sources.delete(source);
    },
  };
}
