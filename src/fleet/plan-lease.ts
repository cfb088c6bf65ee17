/**
 * The pre-warm plan's leader lease and its progress. `prepare` may be called on any
 * instance; the instances that know a plan each try `lead` now and then, and exactly one
 * holds the lease and runs it. The leader renews while it runs; if it dies the lease
 * lapses and the next `lead` elsewhere takes over. Progress counters live beside the
 * lease so any instance can answer `GET …/prepare`, and per-student marks (a token
 * stored, a student who launched) tell a new leader what not to issue again.
 *
 * `inProcessPlanLeases()` is the zero-configuration default; redis-plan-lease.ts shares
 * them across a fleet.
 */

/** How a student of a plan launched: their prepared token was handed out, or they got one on demand. */
export type TakenAs = "handedOut" | "onDemand";

/** What the fleet knows of one student of a plan. */
export interface StudentMarks {
  /** Their prepared token was stored, usable until then (ms since epoch). */
  usableUntil?: number;
  taken?: TakenAs;
}

export interface PlanLeaseStore {
  /** Takes the lease of `planId` for `holder` (or keeps it, if `holder` has it): true if `holder` leads now. */
  lead(planId: string, holder: string): Promise<boolean>;
  /** Extends `holder`'s lease; false if it lost it (lapsed and taken over). */
  renew(planId: string, holder: string): Promise<boolean>;
  /** Gives the lease up (the plan finished or was replaced). */
  resign(planId: string, holder: string): Promise<void>;
  /** Who leads now, if anyone. */
  leader(planId: string): Promise<string | undefined>;
  /** Adds to progress counters (negative to subtract): figures only, nothing decides on them (plain in Redis). */
  count(planId: string, deltas: Record<string, number>): Promise<void>;
  /** Sets progress fields (e.g. the leader's snapshot). Sealed in Redis: they may name students. */
  record(planId: string, fields: Record<string, string | number>): Promise<void>;
  /** Every counter and recorded field; a recorded field that fails its check is left out (and logged). */
  progress(planId: string): Promise<Record<string, string | number>>;
  /** Marks a student's prepared token stored, usable until `usableUntil` (ms). Never the token. */
  markStored(planId: string, userKey: string, usableUntil: number): Promise<void>;
  /** Marks a student launched; any instance writes it. */
  markTaken(planId: string, userKey: string, how: TakenAs): Promise<void>;
  /**
   * The marks of these students, by student key; students without one are left out, a
   * mark that fails its check is ignored (and logged). `handedOut` wins over `onDemand`.
   * `only: "taken"` leaves out the stored-token marks: a running leader needs only to
   * learn who launched, and it reads that at every renewal.
   */
  marks(planId: string, userKeys: readonly string[], only?: "taken"): Promise<Map<string, StudentMarks>>;
  /**
   * Keeps the plan's input (JSON: exam, class, start, roster) until `untilMs` (ms since
   * epoch), replacing an earlier one, and lists the plan among the active ones until then.
   * Never holds a token. Sealed in Redis.
   */
  publish(planId: string, input: string, untilMs: number): Promise<void>;
  /** The input last published for the plan, while it is active; undefined too for one that fails its check (not run, logged). */
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
  const marked = new Map<string, { students: Map<string, StudentMarks>; until: number }>();
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
  const marksOf = (planId: string) => {
    let entry = marked.get(planId);
    if (!entry || entry.until <= now()) marked.set(planId, (entry = { students: new Map(), until: 0 }));
    return entry;
  };
  const mark = (planId: string, userKey: string, change: StudentMarks): void => {
    const entry = marksOf(planId);
    entry.until = now() + timings.progressTtlMs;
    const student = entry.students.get(userKey) ?? {};
    if (change.taken !== undefined && student.taken !== "handedOut") student.taken = change.taken;
    if (change.usableUntil !== undefined) student.usableUntil = change.usableUntil;
    entry.students.set(userKey, student);
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
    async markStored(planId, userKey, usableUntil) {
      mark(planId, userKey, { usableUntil });
    },
    async markTaken(planId, userKey, how) {
      mark(planId, userKey, { taken: how });
    },
    async marks(planId, userKeys, only) {
      const { students } = marksOf(planId);
      const out = new Map<string, StudentMarks>();
      for (const key of userKeys) {
        const student = students.get(key);
        if (only === "taken" && student?.taken) out.set(key, { taken: student.taken });
        else if (only === undefined && student) out.set(key, { ...student });
      }
      return out;
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
