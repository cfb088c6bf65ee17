/**
 * Emulator options → validated settings. Every problem is reported at once (one
 * `ConfigurationError`), and keys only ever appear redacted in those messages.
 */
import { ProblemList } from "../core/configuration-error.js";
import { KeyRing } from "./keys.js";
import { resolveOrganizations, type ResolvedOrganization } from "./organizations.js";
import type { EmulatorOptions } from "./types.js";

export type ApiEnv = "dev" | "prod";

/** Who a key is: its environment and its organization's id. */
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
  /** The first organization's keys (`Emulator.testKey`/`liveKey`). */
  testKey: string;
  liveKey: string;
  keys: Map<string, KeyInfo>;
  /** At least one; the first is the one `testKey`, `liveKey` and `examHost` name. */
  organizations: ResolvedOrganization[];
  rateLimits: RateLimits;
  classCapacity: number;
  ticketParam: string;
  tokenTtlMs: number;
  responseShape: "envelope" | "bare" | "mixed";
  maxBodyBytes: number;
  requestLogLimit: number;
  controlFromAnyAddress: boolean;
}

const isWholeNumber = (n: unknown, min: number, max = Number.MAX_SAFE_INTEGER): n is number =>
  typeof n === "number" && Number.isInteger(n) && n >= min && n <= max;

export function resolveOptions(options: EmulatorOptions = {}): ResolvedOptions {
  const problems = new ProblemList();
  const ring = new KeyRing(problems);
  const organizations = resolveOrganizations(options, ring, problems);

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

  const { testKey, liveKey } = organizations[0]!;
  const keys = ring.keys;

  return {
    organizations,
    port, host, testKey, liveKey, keys, rateLimits, classCapacity, ticketParam, tokenTtlMs,
    responseShape, maxBodyBytes, requestLogLimit, controlFromAnyAddress: options.controlFromAnyAddress ?? false,
  };
}
