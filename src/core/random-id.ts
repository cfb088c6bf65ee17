/**
 * Random ids (base64url) cut from a pooled buffer of CSPRNG bytes. A launch makes two
 * (its wait id and its lease); `randomBytes` per id is a synchronous call into OpenSSL
 * that costs more than the rest of taking a prepared token. One 4 KiB fill serves about
 * 150 ids. The bytes are the same CSPRNG output, each handed out once and never again
 * (Node pools the bytes behind `crypto.randomUUID` the same way).
 */
import { randomFillSync } from "node:crypto";
import { isWholeNumber } from "./whole-number.js";

const POOL_BYTES = 4096;
const pool = Buffer.allocUnsafe(POOL_BYTES);
let offset = POOL_BYTES; // empty: filled on first use

/** `bytes` random bytes as base64url (`bytes` × 4⁄3 characters); at most 4096 bytes. */
export function randomId(bytes: number): string {
  if (!isWholeNumber(bytes, 1, POOL_BYTES)) throw new RangeError(`randomId: bytes must be an integer from 1 to ${POOL_BYTES}`);
  if (offset + bytes > POOL_BYTES) {
    // Refilled whole: the ids already handed out are strings, copies of their bytes.
    randomFillSync(pool);
    offset = 0;
  }
  const id = pool.toString("base64url", offset, offset + bytes);
  offset += bytes;
  return id;
}
