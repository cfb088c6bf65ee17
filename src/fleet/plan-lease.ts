/**
 * The pre-warm plan's leader lease and its progress. `prepare` may be called on any
 * instance; the instances that know a plan each try `lead` now and then, and exactly one
 * holds the lease and runs it. The leader renews while it runs; if it dies the lease
 * lapses and the next `lead` elsewhere takes over. Progress counters live beside the
 * lease so any instance can answer `GET …/prepare`.
 *
 * `inProcessPlanLeases()` is the zero-configuration default; redis-plan-lease.ts shares
 * them across a fleet.
 */

export interface PlanLeaseStore {
  /** Takes the lease of `planId` for `holder` (or keeps it, if `holder` has it): true if `holder` leads now. */
  lead(planId: string, holder: string): Promise<boolean>;
  /** Extends `holder`'s lease; false if it lost it (lapsed and taken over). */
  renew(planId: string, holder: string): Promise<boolean>;
  /** Gives the lease up (the plan finished or was replaced). */
  resign(planId: string, holder: string): Promise<void>;
  /** Who leads now, if anyone. */
  leader(planId: string): Promise<string | undefined>;
  /** Adds to progress counters (negative to subtract). */
  count(planId: string, deltas: Record<string, number>): Promise<void>;
  /** Sets progress fields (e.g. `state`). */
  record(planId: string, fields: Record<string, string | number>): Promise<void>;
  /** Every progress field; numbers for counters. */
  progress(planId: string): Promise<Record<string, string | number>>;
  /**
   * Keeps the plan's input (JSON: exam, class, start, roster) until `untilMs` (ms since
   * epoch), replacing an earlier one, and lists the plan among the active ones until then.
   * Never holds a token.
   */
  publish(planId: string, input: string, untilMs: number): Promise<void>;
  /** The input last published for the plan, while it is active. */
  published(planId: string): Promise<string | undefined>;
  /** Ids of the plans published and not yet past their `untilMs`. */
  activePlans(): Promise<string[]>;
}

export interface PlanLeaseTimings {
  /** Leader lease, ms. */
  leaseMs: number;
  /** How long progress stays readable after its last change, ms. */
  progressTtlMs: number;
}

export function inProcessPlanLeases(timings: PlanLeaseTimings, now: () => number = Date.now): PlanLeaseStore {
  const leases = new Map<string, { holder: string; until: number }>();
  const progress = new Map<string, { fields: Record<string, string | number>; until: number }>();
  const inputs = new Map<string, { input: string; until: number }>();
  const liveInput = (planId: string) => {
    const entry = inputs.get(planId);
    if (entry && entry.until <= now()) inputs.delete(planId);
    return entry && entry.until > now() ? entry.input : undefined;
  };
  const current = (planId: string) => {
    const lease = leases.get(planId);
    return lease && lease.until > now() ? lease : undefined;
  };
  const fieldsOf = (planId: string) => {
    let entry = progress.get(planId);
    if (!entry || entry.until <= now()) progress.set(planId, (entry = { fields: {}, until: 0 }));
    entry.until = now() + timings.progressTtlMs;
    return entry.fields;
  };
  return {
    async lead(planId, holder) {
      const lease = current(planId);
      if (lease && lease.holder !== holder) return false;
      leases.set(planId, { holder, until: now() + timings.leaseMs });
      return true;
    },
    async renew(planId, holder) {
      const lease = current(planId);
      if (lease?.holder !== holder) return false;
      lease.until = now() + timings.leaseMs;
      return true;
    },
    async resign(planId, holder) {
      if (current(planId)?.holder === holder) leases.delete(planId);
    },
    async leader(planId) {
      return current(planId)?.holder;
    },
    async count(planId, deltas) {
      const fields = fieldsOf(planId);
      for (const [name, delta] of Object.entries(deltas)) fields[name] = Number(fields[name] ?? 0) + delta;
    },
    async record(planId, values) {
      Object.assign(fieldsOf(planId), values);
    },
    async progress(planId) {
      const entry = progress.get(planId);
      return entry && entry.until > now() ? { ...entry.fields } : {};
    },
    async publish(planId, input, untilMs) {
      if (untilMs > now()) inputs.set(planId, { input, until: untilMs });
    },
    async published(planId) {
      return liveInput(planId);
    },
    async activePlans() {
      return [...inputs.keys()].filter((planId) => liveInput(planId) !== undefined);
    },
  };
}
