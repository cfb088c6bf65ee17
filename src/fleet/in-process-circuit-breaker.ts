/**
 * The circuit breakers of one instance, in memory: the zero-configuration default (and
 * the fallback of the Redis store while Redis is down). The clock is injectable so the
 * state machine can be tested on a fake one.
 */
import {
  admitCall, newBreakerRecord, settleCall, viewOf,
  type BreakerRecord, type CircuitBreakerSettings, type CircuitBreakerStore,
} from "./circuit-breaker.js";

export function inProcessCircuitBreaker(settings: CircuitBreakerSettings, now: () => number = Date.now): CircuitBreakerStore {
  // One record per scope (key × endpoint): a handful per process, kept for its life.
  const records = new Map<string, BreakerRecord>();
  const recordOf = (scope: string): BreakerRecord => {
    let record = records.get(scope);
    if (!record) records.set(scope, (record = newBreakerRecord(now())));
    return record;
  };
  return {
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
