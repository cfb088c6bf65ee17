/**
 * The `launchRecord` option resolved: how long launch records are kept and how they are
 * written. Problems are added to the router's list (one ConfigurationError for all).
 */
import type { ProblemList } from "../../core/configuration-error.js";
import { wholeMs } from "../shared/checks.js";
import type { LaunchRecordOptions, LiveViewOptions } from "../shared/options.js";
import type { LiveLimitSettings } from "./live-limits.js";

export interface LaunchRecordSettings {
  retentionMs: number;
  purgeEveryMs: number;
  flushMs: number;
  batchSize: number;
  bufferSize: number;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** Undefined: `launchRecord: false`, nothing recorded. */
export function resolveLaunchRecordSettings(value: LaunchRecordOptions | false | undefined, problems: ProblemList): LaunchRecordSettings | undefined {
  if (value === false) return undefined;
  if (value !== undefined && (typeof value !== "object" || value === null)) {
    problems.add("launchRecord", "must be an object or false.", "Pass e.g. { retentionDays: 180 }, false to record nothing, or leave it out.");
    return undefined;
  }
  const o = value ?? {};
  const retentionDays = o.retentionDays ?? 180;
  if (typeof retentionDays !== "number" || !(retentionDays > 0) || !Number.isFinite(retentionDays)) {
    problems.add("launchRecord.retentionDays", "must be a number of days > 0.", "Leave it out for 180.");
  }
  const batchSize = wholeMs(problems, "launchRecord.batchSize", o.batchSize, 50, 1);
  const bufferSize = wholeMs(problems, "launchRecord.bufferSize", o.bufferSize, 10_000, 1);
  if (bufferSize < batchSize) problems.add("launchRecord.bufferSize", "must be at least batchSize.", "Raise bufferSize or lower batchSize.");
  return {
    retentionMs: Number(retentionDays) * DAY_MS,
    purgeEveryMs: wholeMs(problems, "launchRecord.purgeEveryMs", o.purgeEveryMs, 3_600_000, 1_000),
    flushMs: wholeMs(problems, "launchRecord.flushMs", o.flushMs, 1_000, 1),
    batchSize,
    bufferSize,
  };
}

/** The `live` option resolved: the caps on open event streams. */
export function resolveLiveSettings(value: LiveViewOptions | undefined, problems: ProblemList): LiveLimitSettings {
  if (value !== undefined && (typeof value !== "object" || value === null)) {
    problems.add("live", "must be an object.", "Pass e.g. { maxStreamsPerUser: 5 }, or leave it out.");
  }
  const o = typeof value === "object" && value !== null ? value : {};
  return {
    perUser: wholeMs(problems, "live.maxStreamsPerUser", o.maxStreamsPerUser, 5, 1),
    perOrganization: wholeMs(problems, "live.maxStreamsPerOrganization", o.maxStreamsPerOrganization, 100, 1),
    perProcess: wholeMs(problems, "live.maxStreams", o.maxStreams, 1000, 1),
  };
}
