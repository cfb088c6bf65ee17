/**
 * A stable name for an API key: the first 32 hex digits of its SHA-256. The key itself
 * never leaves the process; a hash of a high-entropy key cannot be turned back into it.
 *
 * In process (the client's `keyId`, breaker scopes, log fields) this plain hash is used as
 * it is: nothing here leaves the process. What names Redis keys is keyed on top of it
 * under the fleet secret (src/fleet/cipher.ts: `windowName` for the rate window, `name`
 * for the rest), so that whoever reads Redis cannot test a guessed key against a name.
 */
import { createHash } from "node:crypto";

export function keyHash(apiKey: string): string {
  return createHash("sha256").update(apiKey, "utf8").digest("hex").slice(0, 32);
}
