/**
 * A sign-in token held by the fleet stores. The token string is a non-enumerable
 * property, and inspecting or serialising the object shows only its expiry, so a token
 * reaches neither a log line (pino serialises enumerable fields) nor `util.inspect`.
 */
import { inspect } from "node:util";

export interface PreparedToken {
  /** The one-time sign-in token. Non-enumerable: read it, never log the object's fields expecting it. */
  readonly token: string;
  /** ms since epoch after which it must not be handed out (issue time + TTL − minimum life). */
  readonly usableUntil: number;
}

export function preparedToken(token: string, usableUntil: number): PreparedToken {
  const value = { usableUntil };
  Object.defineProperty(value, "token", { value: token, enumerable: false });
  Object.defineProperty(value, "toJSON", { value: () => ({ token: "[redacted]", usableUntil }), enumerable: false });
  Object.defineProperty(value, inspect.custom, { value: () => `PreparedToken { token: [redacted], usableUntil: ${usableUntil} }`, enumerable: false });
  return Object.freeze(value) as PreparedToken;
}
