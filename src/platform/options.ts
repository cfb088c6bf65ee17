/**
 * Options → settings for the platform client. Every mistake is collected and thrown once
 * (a `ConfigurationError` listing each problem with its fix), so an integrator fixes the
 * whole configuration in one pass. The key is only ever shown through `redactKey`.
 */
import { ProblemList } from "../core/configuration-error.js";
import { toLogger, type Logger } from "../core/logger.js";
import { redactKey } from "../core/redact.js";
import { z } from "zod";
import { flag, objectOrAbsent, optional, ratio, readOptions, readUrl, refuseUnknown, shown, wholeNumber, withDefault, withMethods } from "../core/option-schema.js";
import { DEFAULT_NORMAL_SHARE, type RateBudget } from "./rate-budget.js";
import type { PlatformClientOptions, PlatformEnv } from "./types.js";
import { isHttpsOrLoopback } from "../core/secure-url.js";

/**
 * Validated, defaulted options: what the rest of the client reads (the schema's fields,
 * resolved). `platformOrigin`: scheme://host:port, where the platform's own exam pages
 * live; `apiBase`: `{baseUrl}/api/v1/{env}` without a trailing slash, every request path is
 * appended to it; `rateLimitGiven`: whether `rateLimitPerMinute` was given (else the key
 * environment's default, which the platform's stated limit replaces).
 */
export type PlatformSettings = ReturnType<typeof resolveOptions>;

/**
 * Key families: PLATFORM.md's `svc_` and the vendor reference's `ct_` prefixes are both
 * in use, so both derive the environment.
 */
const PREFIX_ENV: Record<string, PlatformEnv> = { svc_live_: "prod", svc_test_: "dev", ct_live_: "prod", ct_test_: "dev" };
/** The vendor's published limits per key. */
export const DEFAULT_RATE_LIMITS: Record<PlatformEnv, number> = { dev: 60, prod: 600 };

/**
 * The platform client's options as a schema: type, range, unit and default of each (the
 * TSDoc of `PlatformClientOptions` and docs are checked against it). `apiKey`, `env` and
 * `baseUrl` are checked below, where the key's prefix and redaction matter.
 */
export const platformClientSchema = {
  timeoutMs: withDefault(wholeNumber(1, undefined, "ms"), 10_000),
  maxRetries: withDefault(wholeNumber(0, 10), 2),
  /** Default: `timeoutMs × (maxRetries + 1) + 5 000`, worked out below. */
  deadlineMs: optional(wholeNumber(1, undefined, "ms"), { fix: "Pass a whole number of ms ≥ 1, or leave it out for timeoutMs × (maxRetries + 1) + 5000." }),
  maxRetryAfterMs: withDefault(wholeNumber(0, undefined, "ms"), 30_000),
  maxConcurrency: withDefault(wholeNumber(1, 1024), 16),
  /** Default: the key environment's limit (`DEFAULT_RATE_LIMITS`). */
  rateLimitPerMinute: optional(wholeNumber(1, undefined, "requests per minute"), { fix: "Pass a whole number ≥ 1, or leave it out for the key's default (dev 60, prod 600)." }),
  rateWindowMs: withDefault(wholeNumber(1, undefined, "ms"), 60_000),
  normalShare: withDefault(ratio(0, 1), DEFAULT_NORMAL_SHARE),
  retryBaseDelayMs: withDefault(wholeNumber(0, undefined, "ms"), 250),
  retryMaxDelayMs: withDefault(wholeNumber(0, undefined, "ms"), 5_000),
  allowInsecureHttp: withDefault(flag(), false, { fix: "Pass a boolean, or leave it out." }),
  rateBudget: optional(withMethods<RateBudget>("RateBudget", ["acquire", "observe", "pause", "stats", "estimateWaitMs", "pacingIntervalMs"]),
    { fix: "Pass an object with acquire, observe, pause, stats, estimateWaitMs and pacingIntervalMs (the RateBudget interface; docs/client.md), or leave it out: beside a fleet, oralAssessments gives the client the fleet's budget." }),
  logger: optional(z.custom<Partial<Logger>>((l) => typeof l === "object" && l !== null, { error: "must be a pino-compatible logger object." }),
    { fix: "Pass a pino logger (or console), or leave it out." }),
};
const KNOWN_OPTIONS = ["apiKey", "baseUrl", "env", ...Object.keys(platformClientSchema)];

/** Common misspellings, so the fix can name the option that was meant. */
const LIKELY_MEANT: Record<string, string> = {
  key: "apiKey", apikey: "apiKey", api_key: "apiKey", token: "apiKey",
  baseURL: "baseUrl", url: "baseUrl", base_url: "baseUrl", environment: "env",
  timeout: "timeoutMs", retries: "maxRetries", deadline: "deadlineMs",
  concurrency: "maxConcurrency", rateLimit: "rateLimitPerMinute",
};

// eslint-disable-next-line no-control-regex
const WHITESPACE_OR_CONTROL = /[\s\u0000-\u001f\u007f-\u009f]/;

export function resolveOptions(input: PlatformClientOptions) {
  const problems = new ProblemList();
  // The client's own options must be given: left out (undefined), they are not an object either.
  const given = objectOrAbsent(input ?? null, "options", problems, "must be an object.", "Call createPlatformClient({ apiKey, baseUrl }).");
  const options: Partial<PlatformClientOptions> = given ? input : {};
  refuseUnknown(options, KNOWN_OPTIONS, problems, "", "is not an option of the platform client.", LIKELY_MEANT);
  const env = checkKeyAndEnv(options.apiKey, options.env, problems);
  const base = checkBaseUrl(options.baseUrl, options.apiKey, options.allowInsecureHttp, problems);
  const o = readOptions(platformClientSchema, options, problems);
  if (o.retryMaxDelayMs < o.retryBaseDelayMs) {
    problems.add("retryMaxDelayMs", `(${o.retryMaxDelayMs}) is smaller than retryBaseDelayMs (${o.retryBaseDelayMs}).`,
      "Make retryMaxDelayMs at least retryBaseDelayMs.");
  }

  problems.throwIfAny("createPlatformClient");
  // Every field below was checked: the assertions only restate what the checks proved.
  return {
    ...o,
    apiKey: options.apiKey as string,
    env: env!,
    platformOrigin: base!.origin,
    apiBase: `${base!.origin}${base!.prefix}/api/v1/${env!}`,
    deadlineMs: o.deadlineMs ?? o.timeoutMs * (o.maxRetries + 1) + 5_000,
    rateLimitPerMinute: o.rateLimitPerMinute ?? DEFAULT_RATE_LIMITS[env!],
    rateLimitGiven: o.rateLimitPerMinute !== undefined,
    logger: toLogger(o.logger),
  };
}

/** "is missing or empty." or "must be a string, got …": what a required string option is not. */
const notAString = (value: unknown) => ((value ?? "") === "" ? "is missing or empty." : `must be a string, got ${typeof value}.`);

/** The key's checks, and the environment: `env`, else the one the key's prefix implies. */
function checkKeyAndEnv(apiKey: unknown, env: unknown, problems: ProblemList): PlatformEnv | undefined {
  const key = typeof apiKey === "string" ? apiKey : "";
  if (key === "") {
    problems.add("apiKey", notAString(apiKey),
      "Pass the organization's API key (svc_live_…/ct_live_… or svc_test_…/ct_test_…) as a string, e.g. from process.env.ORAL_API_KEY on the server.");
  }
  if (key.trim() !== key || WHITESPACE_OR_CONTROL.test(key)) {
    // A trailing newline from a secrets file is the usual cause; in a header it would also
    // be a request-splitting vector, so it is refused rather than silently trimmed.
    problems.add("apiKey", `(${redactKey(key)}) contains whitespace or control characters.`,
      "Trim the value (a trailing newline from a secrets file is the usual cause).");
  }
  const prefix = Object.keys(PREFIX_ENV).find((p) => key.startsWith(p));
  if (key === prefix) problems.add("apiKey", `(${redactKey(key)}) is only a prefix.`, "Pass the whole key, not just its prefix.");
  const keyEnv = prefix === undefined ? undefined : PREFIX_ENV[prefix];
  const valid = env === undefined || env === "prod" || env === "dev";
  if (!valid) {
    problems.add("env", `must be "prod" or "dev", got ${shown(env, apiKey)}.`,
      'Use "prod" for a live key (svc_live_…, ct_live_…), "dev" for a test key (svc_test_…, ct_test_…), or leave it out to derive it from the key.');
  } else if (env !== undefined && keyEnv !== undefined && env !== keyEnv) {
    problems.add("env", `is "${env}" but the key ${redactKey(key)} is a ${keyEnv === "prod" ? "live" : "test"} key (${keyEnv}).`,
      `Leave env out, or use a ${env === "prod" ? "live (svc_live_…, ct_live_…)" : "test (svc_test_…, ct_test_…)"} key: the platform refuses a key on the other environment's path (401).`);
  } else if (env === undefined && keyEnv === undefined && key !== "") {
    problems.add("apiKey", `(${redactKey(key)}) has none of the prefixes svc_live_, svc_test_, ct_live_, ct_test_, so the environment cannot be derived.`,
      'Check that this is the platform API key; if it is, pass env: "prod" or "dev" explicitly.');
  }
  return valid ? (env ?? keyEnv) : keyEnv;
}

function checkBaseUrl(value: unknown, apiKey: unknown, allowInsecureHttp: unknown, problems: ProblemList): { origin: string; prefix: string } | undefined {
  const example = "Pass the platform's address, e.g. https://platform.example.com (without /api/v1).";
  const url = readUrl(value, "baseUrl", problems, example, notAString(value), (text) => `(${shown(text, apiKey)}) is not an absolute URL.`);
  if (!url) return undefined;
  const before = problems.size;
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    problems.add("baseUrl", `uses ${url.protocol}; only http: and https: are supported.`, example);
  }
  if (url.username || url.password) {
    problems.add("baseUrl", "contains credentials (user:password@).",
      "Remove them: the client authenticates with apiKey, and credentials in a URL end up in logs.");
  }
  if (url.search || url.hash || /[?#]/.test(value as string)) {
    problems.add("baseUrl", "has a query string or fragment, which would end up in the middle of every request path.",
      "Remove everything from ? or # on.");
  }
  const prefix = url.pathname.replace(/\/+$/, "");
  if (/\/api\/v\d+(\/|$)/.test(prefix)) {
    problems.add("baseUrl", `already ends in the API path (${prefix}); the client adds /api/v1/<env> itself.`,
      `Use ${url.origin}${prefix.replace(/\/api\/v\d+.*$/, "")} instead.`);
  }
  if (url.protocol === "http:" && !isHttpsOrLoopback(url) && allowInsecureHttp !== true) {
    problems.add("baseUrl", `uses http:// to ${url.hostname}: the API key would travel in clear text.`,
      "Use https://, or set allowInsecureHttp: true for a private network you trust (e.g. the emulator in a container).");
  }
  return problems.size === before ? { origin: url.origin, prefix } : undefined;
}
