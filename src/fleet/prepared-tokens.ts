/**
 * Prepared tokens: pre-warmed sign-in tokens waiting for their students. Any instance
 * may put one and any instance may hand it out, exactly once (`take` is atomic), never
 * after `usableUntil`, and only for the class it was issued for: a token issued for
 * another class than the one the launch resolved is dropped, not handed out.
 *
 * `inProcessPreparedTokens()` is the zero-configuration default; `redisPreparedTokens`
 * (redis-prepared-tokens.ts) shares them across a fleet, sealed at rest.
 */
import { preparedToken, type PreparedToken } from "./secret-token.js";

export type { PreparedToken } from "./secret-token.js";

export interface PreparedTokenStore {
  /** Keeps `token`, issued for `classId`, for (examId, userKey) until `usableUntil`, replacing any earlier one. */
  put(examId: string, userKey: string, token: string, usableUntil: number, classId: string): Promise<void>;
  /** Hands the token out: at most once fleet-wide, never after `usableUntil`, and only if it was issued for `classId` (else it is dropped). */
  take(examId: string, userKey: string, classId: string): Promise<PreparedToken | undefined>;
  /** Whether a usable token is waiting (does not hand it out). */
  has(examId: string, userKey: string): Promise<boolean>;
  /** Drops it unused. */
  discard(examId: string, userKey: string): Promise<void>;
}

export function inProcessPreparedTokens(now: () => number = Date.now): PreparedTokenStore {
  const tokens = new Map<string, { prepared: PreparedToken; classId: string }>();
  const keyOf = (examId: string, userKey: string): string => `${examId}\u0000${userKey}`;
  const live = (key: string) => {
    const entry = tokens.get(key);
    if (entry && entry.prepared.usableUntil <= now()) tokens.delete(key);
    return entry && entry.prepared.usableUntil > now() ? entry : undefined;
  };
  return {
    async put(examId, userKey, token, usableUntil, classId) {
      if (usableUntil > now()) tokens.set(keyOf(examId, userKey), { prepared: preparedToken(token, usableUntil), classId });
    },
    async take(examId, userKey, classId) {
      const key = keyOf(examId, userKey);
      const entry = live(key);
      tokens.delete(key);
      return entry?.classId === classId ? entry.prepared : undefined;
    },
    async has(examId, userKey) {
      return live(keyOf(examId, userKey)) !== undefined;
    },
    async discard(examId, userKey) {
      tokens.delete(keyOf(examId, userKey));
    },
  };
}
