/**
 * The circuit breakers of one instance, in memory: the zero-configuration default (and
 * the fallback of the Redis store while Redis is down). The clock is injectable so the
 * state machine can be tested on a fake one.
 */
import {
  admitCall, newBreakerRecord, settleCall, viewOf,
  type BreakerRecord, type CircuitBreakerSettings, type CircuitBreakerStore,
} from "./circuit-breaker.js";

/** What the store holds now (tests read it: idle scopes must not stay). */
export interface InProcessCircuitBreaker extends CircuitBreakerStore {
  /** How many scopes have a record. */
  readonly size: number;
}

export function inProcessCircuitBreaker(settings: CircuitBreakerSettings, now: () => number = Date.now): InProcessCircuitBreaker {
  // One record per scope (organization × key × endpoint). With many organizations that is
  // not a handful, so a closed record idle for two windows (its counts have slid out: it is
  // a fresh record again) is dropped, in a sweep at most once a window.
  const records = new Map<string, BreakerRecord>();
  let sweptAt = now();
  const sweep = (at: number) => {
    if (at - sweptAt < settings.windowMs) return;
    sweptAt = at;
    for (const [scope, record] of records) {
      if (record.state === "closed" && at - record.bucketStart >= 2 * settings.windowMs) records.delete(scope);
    }
  };
  const recordOf = (scope: string): BreakerRecord => {
    const at = now();
    sweep(at);
    let record = records.get(scope);
    if (!record) records.set(scope, (record = newBreakerRecord(at)));
    return record;
  };
  return {
    get size() {
      return records.size;
    },
    async admit(scope) {
      return admitCall(recordOf(scope), now(), settings);
    },
    async settle(scope, verdict, probe) {
      return settleCall(recordOf(scope), verdict, probe, now(), settings);
    },
    async view(scope) {
      return viewOf(records.get(scope), now());
    },
  };
}
