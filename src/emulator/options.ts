/**
 * Emulator options → validated settings. Every problem is reported at once (one
 * `ConfigurationError`), and keys only ever appear redacted in those messages.
 */
import { randomBytes } from "node:crypto";
import { ProblemList } from "../core/configuration-error.js";
import { redactKey } from "../core/redact.js";
import type { EmulatorOptions } from "./types.js";

export type ApiEnv = "dev" | "prod";

/** Who a key is: its environment and its organization (`org_main` or `org_other`). */
export interface KeyInfo {
  env: ApiEnv;
  org: string;
}

export interface RateLimits {
  dev: number;
  prod: number;
  windowMs: number;
}

export interface ResolvedOptions {
  port: number;
  host: string;
  testKey: string;
  liveKey: string;
  keys: Map<string, KeyInfo>;
  rateLimits: RateLimits;
  classCapacity: number;
  ticketParam: string;
  tokenTtlMs: number;
  responseShape: "envelope" | "bare" | "mixed";
  maxBodyBytes: number;
  requestLogLimit: number;
  controlFromAnyAddress: boolean;
}

export const MAIN_ORG = "org_main";
export const OTHER_ORG = "org_other";

/** A throwaway key for local use only; 24 random bytes, like a real key's entropy. */
function randomKey(prefix: "svc_test_" | "svc_live_"): string {
  return `${prefix}${randomBytes(24).toString("base64url")}`;
}

const isWholeNumber = (n: unknown, min: number, max = Number.MAX_SAFE_INTEGER): n is number =>
  typeof n === "number" && Number.isInteger(n) && n >= min && n <= max;

export function resolveOptions(options: EmulatorOptions = {}): ResolvedOptions {
  const problems = new ProblemList();
  const keys = new Map<string, KeyInfo>();

  const addKeys = (option: string, list: unknown, pick: (key: string) => KeyInfo | undefined, fix: string) => {
    if (list === undefined) return;
    if (!Array.isArray(list)) {
      problems.add(option, "must be an array of key strings.", fix);
      return;
    }
    list.forEach((key: unknown, i) => {
      const info = typeof key === "string" && key.length > 0 ? pick(key) : undefined;
      if (!info || typeof key !== "string") {
        problems.add(`${option}[${i}]`, `has the wrong form (${redactKey(key)}).`, fix);
      } else if (keys.has(key)) {
        problems.add(`${option}[${i}]`, `is listed twice (${redactKey(key)}).`, "List each key once, in one list.");
      } else {
        keys.set(key, info);
      }
    });
  };
  // Both key families (`svc_` in PLATFORM.md, `ct_` in the vendor reference) are accepted.
  const isLive = (k: string) => k.startsWith("svc_live_") || k.startsWith("ct_live_");
  const isTest = (k: string) => k.startsWith("svc_test_") || k.startsWith("ct_test_");
  addKeys("testKeys", options.testKeys, (k) => (isTest(k) ? { env: "dev", org: MAIN_ORG } : undefined),
    "Test keys start with svc_test_ or ct_test_.");
  addKeys("liveKeys", options.liveKeys, (k) => (isLive(k) ? { env: "prod", org: MAIN_ORG } : undefined),
    "Live keys start with svc_live_ or ct_live_.");
  addKeys("otherOrgKeys", options.otherOrgKeys, (k) => ({ env: isLive(k) ? "prod" : "dev", org: OTHER_ORG }),
    "Give non-empty key strings.");

  const port = options.port ?? 0;
  if (!isWholeNumber(port, 0, 65_535)) problems.add("port", "must be a whole number from 0 to 65535.", "Use 0 to pick a free port.");
  const host = options.host ?? "127.0.0.1";
  if (typeof host !== "string" || host.length === 0) problems.add("host", "must be a non-empty string.", "Use 127.0.0.1.");

  const rateLimits: RateLimits = {
    dev: options.rateLimits?.dev ?? 60,
    prod: options.rateLimits?.prod ?? 600,
    windowMs: options.rateLimits?.windowMs ?? 60_000,
  };
  for (const [name, value] of Object.entries(rateLimits)) {
    if (!isWholeNumber(value, name === "windowMs" ? 1 : 0)) {
      problems.add(`rateLimits.${name}`, "must be a whole number (windowMs at least 1).", "Omit it for the vendor's default.");
    }
  }

  const classCapacity = options.classCapacity ?? 1000;
  if (!isWholeNumber(classCapacity, 0)) problems.add("classCapacity", "must be a whole number ≥ 0.", "Omit it for 1000.");
  const ticketParam = options.ticketParam ?? "__clerk_ticket";
  if (typeof ticketParam !== "string" || !/^[A-Za-z0-9_.~-]+$/.test(ticketParam)) {
    problems.add("ticketParam", "must be a non-empty query parameter name (letters, digits, _ . ~ -).", "Omit it for __clerk_ticket.");
  }
  const tokenTtlMs = options.tokenTtlMs ?? 600_000;
  if (!isWholeNumber(tokenTtlMs, 1)) problems.add("tokenTtlMs", "must be a whole number of ms ≥ 1.", "Omit it for 600000 (10 minutes).");
  const responseShape = options.responseShape ?? "envelope";
  if (!["envelope", "bare", "mixed"].includes(responseShape)) {
    problems.add("responseShape", "must be envelope, bare or mixed.", "Omit it for envelope.");
  }
  const maxBodyBytes = options.maxBodyBytes ?? 1_048_576;
  if (!isWholeNumber(maxBodyBytes, 1)) problems.add("maxBodyBytes", "must be a whole number ≥ 1.", "Omit it for 1 MiB.");
  const requestLogLimit = options.requestLogLimit ?? 10_000;
  if (!isWholeNumber(requestLogLimit, 0)) problems.add("requestLogLimit", "must be a whole number ≥ 0.", "Omit it for 10000.");

  problems.throwIfAny("startEmulator");

  // Defaults only when the caller gave none of that kind, so `testKey`/`liveKey` always work.
  let testKey = options.testKeys?.[0];
  if (testKey === undefined) keys.set((testKey = randomKey("svc_test_")), { env: "dev", org: MAIN_ORG });
  let liveKey = options.liveKeys?.[0];
  if (liveKey === undefined) keys.set((liveKey = randomKey("svc_live_")), { env: "prod", org: MAIN_ORG });

  return {
    port, host, testKey, liveKey, keys, rateLimits, classCapacity, ticketParam, tokenTtlMs,
    responseShape, maxBodyBytes, requestLogLimit, controlFromAnyAddress: options.controlFromAnyAddress ?? false,
  };
}
