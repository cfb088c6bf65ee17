/**
 * The emulator's accepted API keys: each names its environment and its organization. Keys
 * come from several options (`testKeys`, `liveKeys`, `otherOrgKeys`, each organization's
 * own lists); a key may appear once across all of them, so a key always means exactly one
 * organization and two organizations never share a rate window (windows are per key).
 */
import { randomBytes } from "node:crypto";
import type { ProblemList } from "../core/configuration-error.js";
import { redactKey } from "../core/redact.js";
import type { KeyInfo } from "./options.js";

// Both key families (`svc_` in PLATFORM.md, `ct_` in the vendor reference) are accepted.
export const isLiveKey = (k: string): boolean => k.startsWith("svc_live_") || k.startsWith("ct_live_");
export const isTestKey = (k: string): boolean => k.startsWith("svc_test_") || k.startsWith("ct_test_");

export const TEST_KEY_FIX = "Test keys start with svc_test_ or ct_test_.";
export const LIVE_KEY_FIX = "Live keys start with svc_live_ or ct_live_.";

/** A throwaway key for local use only; 24 random bytes, like a real key's entropy. */
function randomKey(prefix: "svc_test_" | "svc_live_"): string {
  return `${prefix}${randomBytes(24).toString("base64url")}`;
}

export class KeyRing {
  readonly keys = new Map<string, KeyInfo>();

  constructor(private readonly problems: ProblemList) {}

  /**
   * Accepts the keys of one option; `pick` says who a key is, or undefined when it has the
   * wrong form. Problems name the option and show keys redacted only.
   */
  add(option: string, list: unknown, pick: (key: string) => KeyInfo | undefined, fix: string): void {
    if (list === undefined) return;
    if (!Array.isArray(list)) {
      this.problems.add(option, "must be an array of key strings.", fix);
      return;
    }
    list.forEach((key: unknown, i) => {
      const info = typeof key === "string" && key.length > 0 ? pick(key) : undefined;
      if (!info || typeof key !== "string") {
        this.problems.add(`${option}[${i}]`, `has the wrong form (${redactKey(key)}).`, fix);
      } else if (this.keys.has(key)) {
        this.problems.add(`${option}[${i}]`, `is listed twice (${redactKey(key)}).`, "List each key once, in one list.");
      } else {
        this.keys.set(key, info);
      }
    });
  }

  /** The first key given, or (none given) a new random one for `who`, so every organization has one of each. */
  firstOrNew(given: readonly string[] | undefined, who: KeyInfo): string {
    const first = given?.[0];
    if (first !== undefined) return first;
    const key = randomKey(who.env === "dev" ? "svc_test_" : "svc_live_");
    this.keys.set(key, who);
    return key;
  }
}
