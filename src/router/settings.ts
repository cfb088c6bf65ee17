/**
 * The router's options resolved into settings, one small object per feature: the launch
 * route gets `LaunchSettings`, the prepare routes `PrepareSettings`, the guards
 * `GuardSettings`, the instructor routes `InstructorSettings`. No feature sees options it
 * does not use. Every mistake is collected and thrown once, as a ConfigurationError
 * listing each problem with its fix.
 */
import { ProblemList } from "../core/configuration-error.js";
import { loudLogger } from "../core/logger.js";
import { STORE_METHODS, type OralStore } from "../store/types.js";
import { LTI_STORE_METHODS, type LtiStore } from "../store/lti-types.js";
import { launchSchema } from "./launch/settings.js";
import type { OralAssessmentsOptions } from "./shared/options.js";
import { PREPARE_RENAMES, resolvePrepareSettings } from "./prepare/settings.js";
import { z } from "zod";
import { checked, fn, optional, readOptions, refuseUnknown, wholeNumber, withDefault, withMethods } from "../core/option-schema.js";
import { checkOrigin } from "./shared/checks.js";
import { pageSchema } from "./shared/page-settings.js";
import { resolveFleetSettings } from "./shared/fleet-settings.js";
import { resolveOrganizationSource } from "./organization/settings.js";
import { LTI_RENAMES, resolveLtiSettings } from "../lti/settings/settings.js";
import { LOGIN_LIMIT_RENAMES } from "../lti/options/login-limit.js";
import { warnRenames } from "../core/deprecation.js";
import { launchExportsOption, liveOption, resolveLaunchRecordSettings } from "./records/settings.js";
import { resolveMetricsSettings } from "./metrics/settings.js";

/**
 * One small settings object per feature. Undefined means: `store`, the router makes the
 * default `sqliteStore()`; `fleet`, an in-process one (with `launchLimit` and
 * `circuitBreaker`: a fleet passed brings its own); `lti`, no LTI routes;
 * `launchRecord`, `launchRecord: false`, nothing recorded; `metrics`, nothing counted.
 */
export type RouterSettings = ReturnType<typeof resolveRouterOptions>;

const BODY_LIMIT = 'must be a positive number of bytes or a size like "100kb".';

/** The router's own options as a schema (each feature's are beside it: launch, prepare, pages, records, organization). */
export const routerSchema = {
  isInstructor: optional(fn<NonNullable<OralAssessmentsOptions["isInstructor"]>>(), { fix: "Pass a function or leave isInstructor out for the default." }),
  resolveClassId: optional(fn<NonNullable<OralAssessmentsOptions["resolveClassId"]>>(), { fix: "Pass a function or leave resolveClassId out for the default." }),
  bodyLimit: withDefault(z.union([z.number(), z.string()], { error: BODY_LIMIT }).transform((v, ctx) => bytesOf(v) ?? (ctx.addIssue({ code: "custom", message: BODY_LIMIT }), z.NEVER)),
    102_400, { fix: 'Use e.g. bodyLimit: "100kb".', unit: "bytes" }),
  trustedOrigins: withDefault(z.array(checked((v, option, problems) => checkOrigin(v, option, problems, false)), { error: "must be an array of origins." })
    .transform((origins) => origins.filter((o) => o !== undefined)), [],
    { fix: 'Use e.g. ["https://lms.example.edu"].' }),
  publicOrigin: optional(checked((v, option, problems) => checkOrigin(v, option, problems, true))),
  listCacheMs: withDefault(wholeNumber(0, undefined, "ms"), 5_000, { fix: "Use 0 to disable the cache, or leave it out for 5000." }),
  /** Every method of the store interface is needed, deletes included. */
  store: optional(withMethods<OralStore>("OralStore", STORE_METHODS), { fix: "Pass memoryStore(), sqliteStore({ filename }) or postgresStore({ connectionString })." }),
};

/**
 * Every option's name (TypeScript checks this list against `OralAssessmentsOptions`): any
 * other name is a mistake (`loginURL`), which would otherwise read as its default without a
 * word, so it stops start-up with the name meant.
 */
const OPTION_NAMES = Object.keys({
  lti: true, platform: true, examHost: true, organization: true, organizationCache: true, organizationClient: true, isInstructor: true,
  student: true, canLaunch: true, resolveClassId: true, store: true, ticketParam: true, loginUrl: true, homeUrl: true, renderPage: true,
  bodyLimit: true, trustedOrigins: true, publicOrigin: true, listCacheMs: true, logger: true, launchWaitMs: true, waitingPageAfterMs: true,
  launchLimit: true, circuitBreaker: true, fleet: true, roster: true, launchRecord: true, live: true, launchExports: true, metrics: true, prepare: true, prewarm: true,
} satisfies Record<keyof OralAssessmentsOptions, true>);

export function resolveRouterOptions(options: OralAssessmentsOptions | undefined) {
  const problems = new ProblemList();
  const o = (options ?? {}) as Partial<OralAssessmentsOptions>;
  if (typeof o === "object" && o !== null) refuseUnknown(o, OPTION_NAMES, problems);
  const { isInstructor, trustedOrigins, publicOrigin, listCacheMs, bodyLimit, ...router } = readOptions(routerSchema, o, problems);
  const launch = readOptions(launchSchema, o, problems);
  const prepare = resolvePrepareSettings(o, problems);
  const logger = loudLogger(o.logger);
  const pages = { ...readOptions(pageSchema, o, problems), logger };
  const { platform: onFleetBudget, ...fleet } = resolveFleetSettings(o, problems);
  const organizations = resolveOrganizationSource(o, onFleetBudget, launch.examHost, problems);
  const lti = resolveLtiSettings(o.lti, problems);
  const ltiStore = lti && ltiStoreOf(lti.store, router.store, problems);
  // With many organizations, a deployment's `organization` is the id of the one it launches for.
  if (lti && o.lti?.organizationFor === undefined && organizations?.kind === "resolver") lti.organizationFor = (named) => named;
  const launchRecord = resolveLaunchRecordSettings(o.launchRecord, problems);
  const { live, launchExports } = readOptions({ live: liveOption, launchExports: launchExportsOption }, o, problems);
  const metrics = resolveMetricsSettings(o.metrics, problems);

  problems.throwIfAny("oralAssessments()");
  // Not an error: a router may serve students only (launch links, the LMS). But a missing
  // isInstructor is otherwise found only as a 403 on the dashboard, so it is said now.
  if (o.isInstructor === undefined) {
    logger.warn({ event: "router_no_instructor", fix: "Pass isInstructor: (req) => … (e.g. req.user?.role === \"instructor\"), or ignore this if no one uses the instructor API." },
      "isInstructor is not set: no one can use the instructor API (its routes answer 403 to everyone)");
  }
  warnRenames(logger, "router_option_deprecated", o, PREPARE_RENAMES);
  warnRenames(logger, "router_option_deprecated", o.lti, LTI_RENAMES, "lti.");
  warnRenames(logger, "router_option_deprecated", o.lti?.loginLimit, LOGIN_LIMIT_RENAMES, "lti.loginLimit.");
  return {
    /** One organization (the `platform` option) or a resolver (`organization`). */
    organizations: organizations!, // checked above: throwIfAny threw without it
    logger,
    /** `store` and `resolveClassId`. */
    ...router,
    guards: { isInstructor: isInstructor ?? (() => false), trustedOrigins: new Set(trustedOrigins), publicOrigin },
    instructor: { listCacheMs, bodyLimit },
    launch,
    prepare,
    pages,
    /** `fleet`, `launchLimit` and `circuitBreaker`. */
    ...fleet,
    lti,
    /** With `lti`: `lti.store`, or the router's store when it has the LTI methods (undefined: the default store, which has). */
    ltiStore,
    launchRecord,
    live,
    launchExports,
    // Registered only now: a router whose options are wrong registers nothing.
    metrics: metrics?.(),
  };
}

/**
 * LTI's store: `lti.store`, else the router's `store` when it implements the LTI methods. A
 * custom store without them serves a router without LTI; with LTI it is a mistake, said now.
 */
function ltiStoreOf(own: LtiStore | undefined, store: OralStore | undefined, problems: ProblemList): LtiStore | undefined {
  if (own || !store) return own;
  const missing = LTI_STORE_METHODS.filter((m) => typeof (store as unknown as Record<string, unknown>)[m] !== "function");
  if (missing.length === 0) return store as unknown as LtiStore;
  problems.add("store", `has no LTI methods (missing ${missing.join(", ")}), and lti needs them.`,
    "Pass lti.store: sqliteStore({ filename }) (or memoryStore(), postgresStore(…)) to keep LTI's tables there, or implement OralStoreLti (docs/stores.md).");
  return undefined;
}

/**
 * `bodyLimit` in bytes: a positive number, or a size like "100kb" (b, kb or mb; 1 kb = 1024
 * bytes, fractions rounded down, as body-parser reads sizes). Undefined when it is neither.
 */
function bytesOf(limit: unknown): number | undefined {
  if (typeof limit === "number") return limit > 0 ? limit : undefined;
  const size = typeof limit === "string" ? /^(\d+(?:\.\d+)?)\s*(b|kb|mb)?$/i.exec(limit) : null;
  if (!size) return undefined;
  const bytes = Math.floor(Number(size[1]) * UNIT_BYTES[(size[2] ?? "b").toLowerCase() as keyof typeof UNIT_BYTES]);
  return bytes > 0 ? bytes : undefined;
}
const UNIT_BYTES = { b: 1, kb: 1024, mb: 1024 * 1024 };
