/**
 * The fleet's `secret` option, read into its keys. Every key the fleet uses (to seal
 * values, to authenticate them, to name Redis keys) is derived from these, so they must
 * be real key material: at least 32 random bytes, written as base64, base64url or hex.
 *
 * A passphrase is refused rather than stretched: a key-derivation function cannot add
 * entropy that a guessable phrase lacks, and whoever can read Redis could try guesses
 * offline against any sealed value. "Random" is checked only for what is obvious (too
 * few distinct bytes, a counting pattern, or text merely encoded); 32 bytes from a real
 * random source pass these checks with overwhelming probability.
 *
 * Rotation: `secret` may be a list of `{ id, secret }`. The first entry seals,
 * authenticates and names; the others still open what was sealed under them (a sealed
 * value carries its key's id). See "Rotating the secret" in docs/fleet.md.
 */
import type { ProblemList } from "../core/configuration-error.js";

/** One entry of a `secret` list. */
export interface FleetSecret {
  /** Names the secret inside every value sealed under it: 1-16 letters, digits, `_` or `-`. */
  id: string;
  /** At least 32 random bytes as base64, base64url or hex (`openssl rand -base64 48`). */
  secret: string;
}

/** A decoded secret and its id. */
export interface FleetKey {
  id: string;
  material: Buffer;
}

/** The id of a secret given as a plain string (write it as `{ id: "default", secret }` when you start rotating). */
const DEFAULT_KEY_ID = "default";
const MIN_SECRET_BYTES = 32;
/** Fewer distinct byte values (or steps between neighbours) than this in 32+ bytes is no random source. */
const MIN_VARIETY = 16;
export const KEY_ID = /^[A-Za-z0-9_-]{1,16}$/;
const HEX = /^(?:[0-9a-fA-F]{2})+$/;
const BASE64 = /^[A-Za-z0-9+/_-]+={0,2}$/;
const FIX = `Generate one: \`openssl rand -base64 48\`, the same on every instance (keep it out of the code, e.g. in ORAL_FLEET_SECRET).`;

/** The secret's bytes, or why it is not usable as a key (never quoting it). */
function decodeSecret(text: string): { material: Buffer } | { problem: string } {
  // `openssl rand -base64` wraps long output in lines; whitespace is never part of a key.
  const compact = text.replace(/\s+/g, "");
  let material: Buffer;
  if (HEX.test(compact)) material = Buffer.from(compact, "hex");
  else if (BASE64.test(compact) && compact.replace(/=+$/, "").length % 4 !== 1) material = Buffer.from(compact, "base64");
  else return { problem: "is not base64, base64url or hex: a passphrase is not a key." };
  if (material.length < MIN_SECRET_BYTES) {
    return { problem: `decodes to ${material.length} bytes; at least ${MIN_SECRET_BYTES} random bytes are needed.` };
  }
  const distinct = new Set(material).size;
  const steps = new Set(material.subarray(1).map((byte, i) => (byte - material[i]!) & 0xff)).size;
  if (distinct < MIN_VARIETY || steps < MIN_VARIETY) {
    return { problem: "does not look random (it repeats a few byte values or counts up)." };
  }
  if (material.every((byte) => byte >= 0x20 && byte <= 0x7e)) {
    return { problem: "decodes to plain text: an encoded passphrase is still a passphrase." };
  }
  return { material };
}

/**
 * Reads `secret` (a string, or a list of `{ id, secret }`) into keys, the sealing one first;
 * problems go to `problems`. A string is the list `[{ id: "default", secret }]`, its
 * problems named `secret`.
 */
export function readSecret(value: unknown, problems: ProblemList): FleetKey[] {
  if (value === undefined || value === null || value === "") {
    problems.add("secret", "is missing.", FIX);
    return [];
  }
  const list: unknown = typeof value === "string" ? [{ id: DEFAULT_KEY_ID, secret: value }] : value;
  if (!Array.isArray(list) || list.length === 0) {
    problems.add("secret", "must be a string or a non-empty list of { id, secret }.", `${FIX} To rotate, list { id, secret } entries, the sealing one first.`);
    return [];
  }
  const keys: FleetKey[] = [];
  const before = problems.size;
  list.forEach((entry: unknown, i) => {
    const at = typeof value === "string" ? "secret" : `secret[${i}].secret`;
    const { id, secret } = (entry ?? {}) as Partial<FleetSecret>;
    if (typeof id !== "string" || !KEY_ID.test(id)) {
      problems.add(`secret[${i}].id`, "must be 1-16 letters, digits, _ or -.", 'Name each secret, e.g. { id: "2025-09", secret }; a plain-string secret had the id "default".');
    } else if (list.slice(0, i).some((earlier: Partial<FleetSecret> | null | undefined) => earlier?.id === id)) {
      problems.add(`secret[${i}].id`, `repeats the id "${id}".`, "Give every secret its own id: a value names the secret that opens it by its id.");
    }
    if (typeof secret !== "string") {
      problems.add(at, "is missing.", FIX);
      return;
    }
    const decoded = decodeSecret(secret);
    if ("problem" in decoded) problems.add(at, decoded.problem, FIX);
    else if (keys.some((k) => k.material.equals(decoded.material))) {
      problems.add(at, "repeats an earlier entry's secret.", "List each secret once, under one id.");
    } else if (typeof id === "string") keys.push({ id, material: decoded.material });
  });
  return problems.size > before ? [] : keys;
}
