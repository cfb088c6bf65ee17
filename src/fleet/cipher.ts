/**
 * What protects fleet state at rest in Redis, with three keys derived from each listed
 * secret by HKDF-SHA-256 (node:crypto), one per use, so no key ever serves two purposes:
 *
 * - `seal`/`open`: AES-256-GCM, for values that are private or decide who gets a token
 *   (tokens, launch outcomes, plan inputs and their rosters, progress snapshots). Every
 *   value gets a fresh 12-byte IV; the GCM tag makes a forged or edited value fail to open.
 * - `sign`/`verify`: HMAC-SHA-256 (tag cut to 128 bits), for short values that hold
 *   nothing private but must not be forged (a plan's per-student marks). Readable in Redis.
 * - `name`/`names`: HMAC-SHA-256, for Redis key and field names that must not reveal
 *   whom they are about.
 * - `windowName`: HMAC-SHA-256 under a key of its own, for the name of an API key's rate
 *   window (from the key's SHA-256, see src/platform/key-hash.ts): whoever reads Redis
 *   cannot test a guessed API key against it without the secret.
 *
 * `aad` binds a value to where it belongs (its Redis key, plus the hash field or wait id),
 * so a value copied elsewhere fails too. A value carries the id of the secret it was made
 * under: the first listed secret makes every new value, the others still open and verify
 * theirs (rotation, see docs/fleet.md). Keys live in a closure, out of reach of
 * `util.inspect` and JSON.
 */
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes, timingSafeEqual } from "node:crypto";
import { KEY_ID, type FleetKey } from "./secret.js";

export interface Cipher {
  /** Encrypts and authenticates `plain` under the first secret, bound to `aad`. */
  seal(plain: string, aad: string): string;
  /** The plain text, or undefined if the value was not sealed under a listed secret with this `aad` (forged, edited, moved, or its secret retired). */
  open(sealed: string, aad: string): string | undefined;
  /** `value` with a tag under the first secret, bound to `aad`; the value stays readable. For values holding nothing private. */
  sign(value: string, aad: string): string;
  /** The value, or undefined if its tag does not hold for this `aad` under a listed secret. */
  verify(signed: string, aad: string): string | undefined;
  /** A keyed name (HMAC-SHA-256, 32 hex digits) under the first secret: what new Redis key and field names are made of. */
  name(value: string): string;
  /** The value's name under every listed secret, the first one's first: lookups that must find what was written before a switch. */
  names(value: string): string[];
  /** The name of an API key's rate window (32 hex digits), from the key's hash, under the first secret. */
  windowName(keyHash: string): string;
  /** Which secret a value says it was made under, for a log line: its id if well-formed, and whether that id is listed. */
  keyIdOf(value: string): { keyId: string | undefined; listed: boolean };
}

const SEALED = "v2";
const SIGNED = "m1";
const SALT = "express-oral-assessments";
const TAG_BYTES = 16;

interface DerivedKey {
  id: string;
  seal: Buffer;
  sign: Buffer;
  name: Buffer;
  window: Buffer;
}

const derive = ({ id, material }: FleetKey): DerivedKey => {
  const hkdf = (purpose: string) => Buffer.from(hkdfSync("sha256", material, SALT, `fleet:${purpose}`, 32));
  return { id, seal: hkdf("aes-256-gcm"), sign: hkdf("mac"), name: hkdf("names"), window: hkdf("rate-window") };
};

const tagOf = (key: DerivedKey, value: string, aad: string): Buffer =>
  createHmac("sha256", key.sign).update(`${key.id}\u0000${aad}\u0000${value}`, "utf8").digest().subarray(0, TAG_BYTES);

const nameUnder = (key: DerivedKey, value: string): string => createHmac("sha256", key.name).update(value, "utf8").digest("hex").slice(0, 32);

/** `keys`: the sealing secret first (see readSecret). */
export function createCipher(keys: readonly FleetKey[]): Cipher {
  if (keys.length === 0) throw new Error("createCipher needs at least one key");
  const derived = keys.map(derive);
  const current = derived[0]!;
  const byId = new Map(derived.map((k) => [k.id, k]));
  const cipher: Cipher = {
    seal(plain, aad) {
      const iv = randomBytes(12);
      const c = createCipheriv("aes-256-gcm", current.seal, iv);
      c.setAAD(Buffer.from(aad));
      const body = Buffer.concat([c.update(plain, "utf8"), c.final()]);
      return [SEALED, current.id, iv.toString("base64url"), body.toString("base64url"), c.getAuthTag().toString("base64url")].join(".");
    },
    open(sealed, aad) {
      const [version, id, iv, body, tag, extra] = sealed.split(".");
      const key = id === undefined ? undefined : byId.get(id);
      if (version !== SEALED || !key || !iv || body === undefined || !tag || extra !== undefined) return undefined;
      try {
        const d = createDecipheriv("aes-256-gcm", key.seal, Buffer.from(iv, "base64url"));
        d.setAAD(Buffer.from(aad));
        d.setAuthTag(Buffer.from(tag, "base64url"));
        return Buffer.concat([d.update(Buffer.from(body, "base64url")), d.final()]).toString("utf8");
      } catch {
        return undefined;
      }
    },
    sign(value, aad) {
      return [SIGNED, current.id, value, tagOf(current, value, aad).toString("base64url")].join(".");
    },
    verify(signed, aad) {
      const parts = signed.split(".");
      if (parts.length < 4 || parts[0] !== SIGNED) return undefined;
      const key = byId.get(parts[1]!);
      const tag = Buffer.from(parts.at(-1)!, "base64url");
      const value = parts.slice(2, -1).join(".");
      if (!key || tag.length !== TAG_BYTES) return undefined;
      return timingSafeEqual(tag, tagOf(key, value, aad)) ? value : undefined;
    },
    name: (value) => nameUnder(current, value),
    names: (value) => derived.map((key) => nameUnder(key, value)),
    windowName: (keyHash) => createHmac("sha256", current.window).update(keyHash, "utf8").digest("hex").slice(0, 32),
    keyIdOf(value) {
      const id = value.split(".")[1];
      const keyId = id !== undefined && KEY_ID.test(id) ? id : undefined;
      return { keyId, listed: keyId !== undefined && byId.has(keyId) };
    },
  };
  return Object.freeze(cipher);
}
