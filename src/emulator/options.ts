/**
 * Emulator options → validated settings. Every problem is reported at once (one
 * `ConfigurationError`), and keys only ever appear redacted in those messages.
 */
import { z } from "zod";
import { ProblemList } from "../core/configuration-error.js";
import { flag, nested, pattern, readOptions, refuseUnknown, wholeNumber, withDefault } from "../core/option-schema.js";
import { KeyRing } from "./keys.js";
import { resolveOrganizations } from "./organizations.js";
import type { EmulatorOptions } from "./types.js";

export type ApiEnv = "dev" | "prod";

/** Who a key is: its environment and its organization's id. */
export interface KeyInfo {
  env: ApiEnv;
  org: string;
}

export type RateLimits = ResolvedOptions["rateLimits"];

/**
 * The schema's fields, and the organizations and keys: at least one organization, the
 * first the one `testKey`, `liveKey` (`Emulator.testKey`/`liveKey`) and `examHost` name.
 */
export type ResolvedOptions = ReturnType<typeof resolveOptions>;

/** The fix of every rate-limit field: the emulator's defaults are the vendor's published limits. */
const VENDOR_DEFAULT = { fix: "Omit it for the vendor's default." };

/** The emulator's options as a schema (organizations and keys are read by `resolveOrganizations`). */
export const emulatorSchema = {
  port: withDefault(wholeNumber(0, 65_535), 0, { fix: "Use 0 to pick a free port." }),
  host: withDefault(pattern(/./, "must be a non-empty string."), "127.0.0.1", { fix: "Use 127.0.0.1." }),
  rateLimits: nested({
    dev: withDefault(wholeNumber(0), 60, VENDOR_DEFAULT),
    prod: withDefault(wholeNumber(0), 600, VENDOR_DEFAULT),
    windowMs: withDefault(wholeNumber(1, undefined, "ms"), 60_000, VENDOR_DEFAULT),
  }, VENDOR_DEFAULT),
  classCapacity: withDefault(wholeNumber(0), 1000),
  ticketParam: withDefault(pattern(/^[A-Za-z0-9_.~-]+$/, "must be a non-empty query parameter name (letters, digits, _ . ~ -)."), "__clerk_ticket"),
  tokenTtlMs: withDefault(wholeNumber(1, undefined, "ms"), 600_000),
  responseShape: withDefault(z.enum(["envelope", "bare", "mixed"], { error: "must be envelope, bare or mixed." }), "envelope"),
  maxBodyBytes: withDefault(wholeNumber(1, undefined, "bytes"), 1_048_576),
  requestLogLimit: withDefault(wholeNumber(0), 10_000),
  controlFromAnyAddress: withDefault(flag(), false),
};

/** Every option's name (checked against `EmulatorOptions`): any other is a typo, refused with the name meant. */
const OPTION_NAMES = Object.keys({
  port: true, host: true, testKeys: true, liveKeys: true, rateLimits: true, classCapacity: true, ticketParam: true, tokenTtlMs: true,
  responseShape: true, logger: true, otherOrgKeys: true, maxBodyBytes: true, requestLogLimit: true, controlFromAnyAddress: true, organizations: true,
} satisfies Record<keyof EmulatorOptions, true>);

export function resolveOptions(options: EmulatorOptions = {}) {
  const problems = new ProblemList();
  if (typeof options === "object" && options !== null) refuseUnknown(options, OPTION_NAMES, problems);
  const ring = new KeyRing(problems);
  const organizations = resolveOrganizations(options, ring, problems);
  const read = readOptions(emulatorSchema, options, problems);
  problems.throwIfAny("startEmulator");
  const { testKey, liveKey } = organizations[0]!;
  return { ...read, organizations, testKey, liveKey, keys: ring.keys };
}
