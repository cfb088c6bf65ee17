/**
 * Encryption at rest for tokens kept in Redis: AES-256-GCM (node:crypto) with a key
 * derived from the fleet's `secret` by HKDF-SHA-256. Every value gets a fresh 12-byte IV;
 * the GCM tag makes a value sealed under another secret (or tampered with) fail to open
 * instead of yielding garbage. The `aad` binds a value to its Redis key, so a value
 * copied to another key does not open either. The secret and key are kept in a closure,
 * out of reach of `util.inspect` and JSON.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes, createHmac } from "node:crypto";

export interface Cipher {
  seal(plain: string, aad: string): string;
  /** The plain text, or undefined if the value was not sealed with this secret and aad. */
  open(sealed: string, aad: string): string | undefined;
  /** A keyed hash (HMAC-SHA-256, 32 hex digits) for names that must not reveal who they are about. */
  name(value: string): string;
}

export function createCipher(secret: string): Cipher {
  const key = Buffer.from(hkdfSync("sha256", secret, "express-oral-assessments", "fleet:aes-256-gcm", 32));
  const nameKey = Buffer.from(hkdfSync("sha256", secret, "express-oral-assessments", "fleet:names", 32));
  const cipher: Cipher = {
    seal(plain, aad) {
      const iv = randomBytes(12);
      const c = createCipheriv("aes-256-gcm", key, iv);
      c.setAAD(Buffer.from(aad));
      const body = Buffer.concat([c.update(plain, "utf8"), c.final()]);
      return `v1.${iv.toString("base64url")}.${body.toString("base64url")}.${c.getAuthTag().toString("base64url")}`;
    },
    open(sealed, aad) {
      const [version, iv, body, tag] = sealed.split(".");
      if (version !== "v1" || !iv || body === undefined || !tag) return undefined;
      try {
        const d = createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64url"));
        d.setAAD(Buffer.from(aad));
        d.setAuthTag(Buffer.from(tag, "base64url"));
        return Buffer.concat([d.update(Buffer.from(body, "base64url")), d.final()]).toString("utf8");
      } catch {
        return undefined;
      }
    },
    name(value) {
      return createHmac("sha256", nameKey).update(value, "utf8").digest("hex").slice(0, 32);
    },
  };
  return Object.freeze(cipher);
}
