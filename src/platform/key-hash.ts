/**
 * The name a shared store may use for an API key: the first 32 hex digits of its SHA-256.
 * The key itself never leaves the process; a hash of a high-entropy key cannot be turned
 * back into it, yet the same key always maps to the same shared rate window.
 */
import { createHash } from "node:crypto";

export function keyHash(apiKey: string): string {
  return createHash("sha256").update(apiKey, "utf8").digest("hex").slice(0, 32);
}
