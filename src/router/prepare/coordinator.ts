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
 * (the leader's PrepareProgress as JSON), `platformCalls` (counted by every leader), `u:<student>` (usableUntil of the token stored),
 * `h:<student>` / `d:<student>` (handed out / launched on demand, written by any instance).
 */
import { randomUUID } from "node:crypto";
import type { Logger } from "../../core/logger.js";
import type { Fleet } from "../../fleet/fleet.js";
import type { PrepareProgress } from "./plan.js";
import type { FleetEntryState, PlanFleetHooks, PreparerInput, TokenPreparer } from "./preparer.js";

/** The input stays in the fleet this long after keepUntil, so late readers still find it. */
const INPUT_MARGIN_MS = 60 * 60_000;

interface PublishedPlan extends PreparerInput {
  /** Each `prepare` publishes a new version; the leader reloads when it changes. */
  version: string;
}

export class PlanCoordinator implements PlanFleetHooks {
  /** Plans this instance knows of, with the version of the input it runs (or holds). */
  private readonly known = new Map<string, string | undefined>();
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
    await leases.publish(input.examId, JSON.stringify({ ...input, version } satisfies PublishedPlan), Date.parse(progress.keepUntil) + INPUT_MARGIN_MS);
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
    void this.fleet.planLeases.record(examId, { [`u:${userKey}`]: usableUntil }).catch(() => undefined);
  }

  called(examId: string): void {
    void this.fleet.planLeases.count(examId, { platformCalls: 1 }).catch(() => undefined);
  }

  taken(examId: string, userKey: string, outcome: "handedOut" | "onDemand"): void {
    if (!this.known.has(examId)) return; // not a plan of the fleet as far as this instance knows
    void this.fleet.planLeases.record(examId, { [`${outcome === "handedOut" ? "h" : "d"}:${userKey}`]: 1 }).catch(() => undefined);
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
      this.logger.warn({ event: "prewarm_lease_failed", error: (error as Error)?.message }, "a pre-warm plan lease step failed");
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
    if (raw === undefined) { // the plan is over
      this.preparer.stopLeading(examId);
      this.known.delete(examId);
      return;
    }
    const leading = this.preparer.leads(examId);
    if (leading ? !(await leases.renew(examId, me)) : !(await leases.lead(examId, me))) {
      if (leading) {
        this.preparer.stopLeading(examId);
        this.logger.warn({ event: "prewarm_lease_lost", examId }, "lost the pre-warm plan's lease: another instance runs it");
      }
      return;
    }
    const input = JSON.parse(raw) as PublishedPlan;
    if (this.known.get(examId) !== input.version || !this.preparer.hasPlan(examId)) {
      this.preparer.prepare({ ...input, courseId: input.courseId ?? undefined });
      this.known.set(examId, input.version);
    }
    const fields = await leases.progress(examId);
    if (!leading) {
      const state = new Map<string, FleetEntryState>();
      await Promise.all(this.preparer.studentKeys(examId).map(async (key) => {
        const usableUntil = fields[`u:${key}`];
        const taken = fields[`h:${key}`] !== undefined ? "handedOut" as const : fields[`d:${key}`] !== undefined ? "onDemand" as const : undefined;
        const held = taken === undefined && (await this.fleet.preparedTokens.has(examId, key));
        state.set(key, { taken, usableUntil: held ? Number(usableUntil ?? Date.now()) : undefined });
      }));
      this.logger.info({ event: "prewarm_leading", examId }, "this instance runs the pre-warm plan");
      this.preparer.startLeading(examId, state);
    } else {
      const taken = new Map<string, "handedOut" | "onDemand">();
      for (const name of Object.keys(fields)) {
        if (name.startsWith("h:")) taken.set(name.slice(2), "handedOut");
        else if (name.startsWith("d:") && !taken.has(name.slice(2))) taken.set(name.slice(2), "onDemand");
      }
      this.preparer.applyTaken(examId, taken);
    }
    const progress = this.preparer.progress(examId);
    // Calls of every leader the plan had, not only this one's.
    if (progress) await leases.record(examId, { snapshot: JSON.stringify({ ...progress, platformCalls: Number(fields.platformCalls ?? progress.platformCalls) }) });
  }
}
