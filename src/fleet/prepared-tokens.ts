/**
 * Prepared tokens: pre-warmed sign-in tokens waiting for their students. Any instance
 * may put one and any instance may hand it out, exactly once (`take` is atomic), and
 * never after `usableUntil`.
 *
 * `inProcessPreparedTokens()` is the zero-configuration default; `RedisPreparedTokens`
 * (redis-prepared-tokens.ts) shares them across a fleet, encrypted at rest.
 */
import { preparedToken, type PreparedToken } from "./secret-token.js";

export type { PreparedToken } from "./secret-token.js";

export interface PreparedTokenStore {
  /** Keeps `token` for (examId, userKey) until `usableUntil`, replacing any earlier one. */
  put(examId: string, userKey: string, token: string, usableUntil: number): Promise<void>;
  /** Hands the token out: at most once fleet-wide, never after `usableUntil`. */
  take(examId: string, userKey: string): Promise<PreparedToken | undefined>;
  /** Whether a usable token is waiting (does not hand it out). */
  has(examId: string, userKey: string): Promise<boolean>;
  /** Drops it unused. */
  discard(examId: string, userKey: string): Promise<void>;
}

export function inProcessPreparedTokens(now: () => number = Date.now): PreparedTokenStore {
  const tokens = new Map<string, PreparedToken>();
  const keyOf = (examId: string, userKey: string): string => `${examId}\u0000${userKey}`;
  const live = (key: string): PreparedToken | undefined => {
    const entry = tokens.get(key);
    if (entry && entry.usableUntil <= now()) tokens.delete(key);
    return entry && entry.usableUntil > now() ? entry : undefined;
  };
  return {
    async put(examId, userKey, token, usableUntil) {
      if (usableUntil > now()) tokens.set(keyOf(examId, userKey), preparedToken(token, usableUntil));
    },
    async take(examId, userKey) {
      const key = keyOf(examId, userKey);
      const entry = live(key);
      tokens.delete(key);
      return entry;
    },
    async has(examId, userKey) {
      return live(keyOf(examId, userKey)) !== undefined;
    },
    async discard(examId, userKey) {
      tokens.delete(keyOf(examId, userKey));
    },
  };
}
