/**
 * The warn line for a value in Redis that the fleet refused to use: it failed its check
 * (forged, edited, moved from another key or field, or sealed under a secret no longer
 * listed), or it was sound but for something else (a prepared token of another class).
 * It names what and where (Redis key names carry exam ids and keyed names only), never
 * the value, never whom it is about. One line per value: a refused value read again (a
 * forged plan is seen at every lease step) is not reported again by this instance.
 */
import { createHash } from "node:crypto";
import type { Logger } from "../core/logger.js";
import type { Cipher } from "./cipher.js";

export type RefusedValue = "plan input" | "plan progress" | "plan mark" | "attempt outcome" | "prepared token";

export interface Refusals {
  report(what: RefusedValue, key: string, value: string, reason?: string): void;
}

const FAILED_CHECK = "it failed its check (written without the fleet secret, edited, moved from another key, or sealed under a secret no longer listed)";
/** Values remembered as reported; past it the oldest are forgotten (and would be reported again). */
const REMEMBERED = 1_000;

export function refusals(logger: Logger, cipher: Cipher): Refusals {
  const reported = new Set<string>();
  return {
    report(what, key, value, reason = FAILED_CHECK) {
      const seen = `${key}\u0000${createHash("sha256").update(value).digest("base64url")}`;
      if (reported.has(seen)) return;
      reported.add(seen);
      if (reported.size > REMEMBERED) reported.delete(reported.values().next().value!);
      const { keyId, listed } = cipher.keyIdOf(value);
      logger.warn({ event: "fleet_value_refused", what, key, keyId, keyListed: listed }, `a ${what} in Redis was not used: ${reason}`);
    },
  };
}
