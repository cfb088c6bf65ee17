/**
 * The `launchRecord`, `live` and `launchExports` options as schemas: how long launch
 * records are kept and how they are written, the caps on open event streams and on open
 * exports of the record. Problems are added to the router's list (one ConfigurationError
 * for all).
 */
import type { ProblemList } from "../../core/configuration-error.js";
import { nested, ratio, readObject, wholeNumber, withDefault } from "../../core/option-schema.js";
import type { LaunchRecordOptions } from "../shared/options.js";

export const launchRecordSchema = {
  retentionDays: withDefault(ratio(0, Infinity, { minExclusive: true }), 180, { unit: "days" }),
  purgeEveryMs: withDefault(wholeNumber(1_000, undefined, "ms"), 3_600_000),
  flushMs: withDefault(wholeNumber(1, undefined, "ms"), 1_000),
  batchSize: withDefault(wholeNumber(1), 50),
  bufferSize: withDefault(wholeNumber(1), 10_000),
};

export const liveSchema = {
  maxStreamsPerUser: withDefault(wholeNumber(1), 5),
  maxStreamsPerOrganization: withDefault(wholeNumber(1), 100),
  maxStreams: withDefault(wholeNumber(1), 1000),
};

export const launchExportsSchema = {
  maxExportsPerUser: withDefault(wholeNumber(1), 5),
  maxExportsPerOrganization: withDefault(wholeNumber(1), 100),
  maxExports: withDefault(wholeNumber(1), 1000),
  stalledMs: withDefault(wholeNumber(1_000, undefined, "ms"), 120_000),
};

/** The schema's fields, `retentionDays` as `retentionMs`. */
export type LaunchRecordSettings = NonNullable<ReturnType<typeof resolveLaunchRecordSettings>>;

const DAY_MS = 24 * 60 * 60 * 1000;

/** Undefined: `launchRecord: false`, nothing recorded. */
export function resolveLaunchRecordSettings(value: LaunchRecordOptions | false | undefined, problems: ProblemList) {
  if (value === false) return undefined;
  const { retentionDays, ...o } = readObject(launchRecordSchema, value, problems, "launchRecord",
    ["must be an object or false.", "Pass e.g. { retentionDays: 180 }, false to record nothing, or leave it out."]);
  if (o.bufferSize < o.batchSize) problems.add("launchRecord.bufferSize", "must be at least batchSize.", "Raise bufferSize or lower batchSize.");
  return { ...o, retentionMs: retentionDays * DAY_MS };
}

/** The whole `live` option (the caps on open event streams), read with the router's own. */
export const liveOption = nested(liveSchema, { fix: "Pass e.g. { maxStreamsPerUser: 5 }, or leave it out." }, { notObject: "must be an object." });

/** The whole `launchExports` option (the caps on open launch-record exports), read with the router's own. */
export const launchExportsOption = nested(launchExportsSchema, { fix: "Pass e.g. { maxExportsPerUser: 5 }, or leave it out." }, { notObject: "must be an object." });
