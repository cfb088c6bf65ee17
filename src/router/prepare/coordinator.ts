/**
 * Fleet mode only: one instance runs each pre-warm plan, whichever instance received
 * `prepare`. The receiving instance publishes the plan's input (exam, class, start,
 * roster: names and e-mails, never tokens) in the fleet until keepUntil + an hour; every
 * instance that knows of the plan (it received `prepare`, or sees it among the fleet's
 * active plans) tries the plan's lease every third of `planLeaseMs`. The holder pumps the
 * plan (TokenPreparer runs only the plans it leads), renews, and writes a progress
 * snapshot each time; if renewing fails it stops issuing. A new holder loads the input,
 * reads what the fleet already has (tokens stored, students who launched), and issues
 * only what is missing: a takeover re-issues at most the calls in flight at the old
 * leader when it died (their answers were never stored).
 *
 * Fleet state of a plan (PlanLeaseStore): `published` input; progress fields `snapshot`
 * (the leader's PrepareProgress as JSON), `platformCalls` (counted by every leader); per
 * student, marks of a token stored (its usableUntil) and of a launch (handed out / on
 * demand, written by any instance). In Redis the store seals or signs all but the counter
 * and refuses what fails its check; an input that passes is still parsed before it runs.
 */
import { randomUUID } from "node:crypto";
import { z } from "zod";
import type { Logger } from "../../core/logger.js";
import type { Fleet } from "../../fleet/fleet.js";
import { StudentIdentity } from "../../platform/schemas.js";
import type { PrepareProgress } from "./plan.js";
import type { FleetEntryState, PlanFleetHooks, PreparerInput, TokenPreparer } from "./preparer.js";


interface PublishedPlan extends PreparerInput {
  /** Each `prepare` publishes a new version; the leader reloads when it changes. */
  version: string;
}

const PublishedPlanSchema = z.object({
  examId: z.string(), classId: z.string(), courseId: z.string().nullish(), startAt: z.number(),
  roster: z.array(StudentIdentity), version: z.string(),
});

/** The published input as a plan, or undefined when it is not one of this exam's. */
function readPlan(examId: string, raw: string): PublishedPlan | undefined {
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    return undefined;
  }
  const parsed = PublishedPlanSchema.safeParse(json);
  if (!parsed.success || parsed.data.examId !== examId) return undefined;
  return { ...parsed.data, courseId: parsed.data.courseId ?? undefined };
}

export class PlanCoordinator implements PlanFleetHooks {
  /** Plans this instance knows of, with the version of the input it runs (or holds). */
  private readonly known = new Map<string, string | undefined>();
  /** Plans whose published input passed the store's check but is not a plan of its exam (reported once). */
  private readonly unreadable = new Set<string>();
  private readonly timer: NodeJS.Timeout;
  private ticking = false;
  private closed = false;

  constructor(
    private readonly fleet: Fleet,
    private readonly preparer: TokenPreparer,
    private readonly logger: Logger,
  ) {
    preparer.coordinate(this);
    this.timer = setInterval(() => void this.tick(), Math.max(20, Math.floor(fleet.planLeaseMs / 3)));
    this.timer.unref();
  }

  /** After a local `prepare`: publish the input, then try to lead at once. */
  async announce(input: PreparerInput, progress: PrepareProgress): Promise<void> {
    const version = randomUUID();
    this.known.set(input.examId, version);
    const leases = this.fleet.planLeases;
    await leases.publish(input.examId, JSON.stringify({ ...input, version } satisfies PublishedPlan), Date.parse(progress.keepUntil) + this.preparer.keepFinishedMs);
    // Readable at once on every instance; the leader overwrites it at its next renewal.
    if ((await leases.leader(input.examId)) === undefined) await leases.record(input.examId, { snapshot: JSON.stringify(progress) });
    await this.step(input.examId);
  }

  /** The plan's progress as the fleet sees it (the leader's last snapshot). */
  async progress(examId: string): Promise<PrepareProgress | undefined> {
    const snapshot = (await this.fleet.planLeases.progress(examId)).snapshot;
    return typeof snapshot === "string" ? (JSON.parse(snapshot) as PrepareProgress) : this.preparer.progress(examId);
  }

  stored(examId: string, userKey: string, usableUntil: number): void {
    void this.fleet.planLeases.markStored(examId, userKey, usableUntil).catch(() => undefined);
  }

  called(examId: string): void {
    void this.fleet.planLeases.count(examId, { platformCalls: 1 }).catch(() => undefined);
  }

  taken(examId: string, userKey: string, outcome: "handedOut" | "onDemand"): void {
    if (!this.known.has(examId)) return; // not a plan of the fleet as far as this instance knows
    void this.fleet.planLeases.markTaken(examId, userKey, outcome).catch(() => undefined);
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    await Promise.all([...this.known.keys()].filter((id) => this.preparer.leads(id)).map((id) => {
      this.preparer.stopLeading(id);
      return this.fleet.planLeases.resign(id, this.fleet.instanceId).catch(() => undefined);
    }));
  }

  private async tick(): Promise<void> {
    if (this.ticking || this.closed) return;
    this.ticking = true;
    try {
      for (const id of await this.fleet.planLeases.activePlans()) if (!this.known.has(id)) this.known.set(id, undefined);
      for (const id of this.known.keys()) await this.step(id);
    } catch (error) {
      this.logger.warn({ event: "prepare_lease_failed", error: (error as Error)?.message }, "a pre-warm plan lease step failed");
    } finally {
      this.ticking = false;
    }
  }

  /** Leads (or keeps leading) one plan, or stops if another instance took it. */
  private async step(examId: string): Promise<void> {
    if (this.closed) return;
    const leases = this.fleet.planLeases;
    const me = this.fleet.instanceId;
    const raw = await leases.published(examId);
    // Over, refused by the store (it failed its check), or not a plan of this exam: not run.
    const input = raw === undefined ? undefined : readPlan(examId, raw);
    if (input === undefined) {
      if (raw !== undefined && !this.unreadable.has(examId)) {
        this.unreadable.add(examId);
        this.logger.warn({ event: "prepare_input_unreadable", examId }, "a published pre-warm plan is not a plan of this exam: it is not run");
      }
      this.preparer.stopLeading(examId);
      this.known.delete(examId);
      return;
    }
    this.unreadable.delete(examId);
    const leading = this.preparer.leads(examId);
    if (leading ? !(await leases.renew(examId, me)) : !(await leases.lead(examId, me))) {
      if (leading) {
        this.preparer.stopLeading(examId);
        this.logger.warn({ event: "prepare_lease_lost", examId }, "lost the pre-warm plan's lease: another instance runs it");
      }
      return;
    }
    if (this.known.get(examId) !== input.version || !this.preparer.hasPlan(examId)) {
      this.preparer.prepare(input);
      this.known.set(examId, input.version);
    }
    if (!leading) {
      const students = this.preparer.studentKeys(examId);
      const marks = await leases.marks(examId, students);
      const state = new Map<string, FleetEntryState>();
      await Promise.all(students.map(async (key) => {
        const { taken, usableUntil } = marks.get(key) ?? {};
        const held = taken === undefined && (await this.fleet.preparedTokens.has(examId, key));
        state.set(key, { taken, usableUntil: held ? usableUntil ?? Date.now() : undefined });
      }));
      this.logger.info({ event: "prepare_leading", examId }, "this instance runs the pre-warm plan");
      this.preparer.startLeading(examId, state);
    } else {
      const taken = new Map<string, "handedOut" | "onDemand">();
      for (const [key, { taken: how }] of await leases.marks(examId, this.preparer.undecidedStudentKeys(examId), "taken")) if (how !== undefined) taken.set(key, how);
      this.preparer.applyTaken(examId, taken);
    }
    const fields = await leases.progress(examId);
    const progress = this.preparer.progress(examId);
    // Calls of every leader the plan had, not only this one's.
    if (progress) await leases.record(examId, { snapshot: JSON.stringify({ ...progress, platformCalls: Number(fields.platformCalls ?? progress.platformCalls) }) });
  }
}
