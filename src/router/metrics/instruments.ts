/**
 * The router's Prometheus metrics, made once per registry and shared by every router
 * (and every copy of this package, ESM or CommonJS) counting on it: they are kept on the
 * registry under a `Symbol.for` key, so a second router finds them instead of failing
 * with "metric already registered". Routers on one registry must agree on
 * `organizationLabel` (the label set of a metric is fixed when it is made).
 *
 * Counters and the histogram are updated where things happen (no await, no I/O); the
 * gauges are read when Prometheus scrapes (`collect`), from the sources each router's
 * organizations add (waiting launches, the rate budget, pre-warming plans).
 */
import type * as Prom from "prom-client";
import type { PrepareProgress } from "../prepare/plan.js";

type Labels = Record<string, string>;

/** What one organization's scope reports at scrape time. */
export interface GaugeSnapshot {
  organization: string;
  /** On-demand launches waiting for their token on this instance. */
  waiting: number;
  budgetUsed: number;
  budgetLimit: number;
  /** The progress of each pre-warming plan this instance keeps. */
  plans: PrepareProgress[];
}
export type GaugeSource = () => GaugeSnapshot;

export interface Instruments {
  readonly organizationLabel: boolean;
  readonly launches: { inc(labels: Labels): void };
  readonly launchSeconds: { observe(labels: Labels, seconds: number): void };
  readonly platformRequests: { inc(labels: Labels): void };
  readonly platformRateLimited: { inc(labels: Labels): void };
  /** Every organization scope of every router on this registry that is open now. */
  readonly sources: Set<GaugeSource>;
}

const KEY = Symbol.for("express-oral-assessments.metrics");
/** A plan counts towards "late" from this long before its exam starts. */
export const LATE_FROM_MS = 2 * 60_000;
const TOKEN_STATES = ["ready", "pending", "failed", "handed_out", "on_demand", "expired"] as const;

/** The `organizationLabel` the registry's instruments were made with; undefined: none made yet. */
export function heldOrganizationLabel(registry: unknown): boolean | undefined {
  return (registry as Record<symbol, Instruments | undefined>)[KEY]?.organizationLabel;
}

/** The registry's instruments, made on first use (the caller checked `heldOrganizationLabel` first). */
export function instrumentsFor(promClient: unknown, registry: unknown, organizationLabel: boolean): Instruments {
  const held = (registry as Record<symbol, Instruments | undefined>)[KEY];
  if (held) return held;
  const made = make(promClient as typeof Prom, registry as Prom.Registry, organizationLabel);
  Object.defineProperty(registry, KEY, { value: made, enumerable: false });
  return made;
}

function make(prom: typeof Prom, registry: Prom.Registry, organizationLabel: boolean): Instruments {
  const org = organizationLabel ? ["organization"] : [];
  const registers = [registry];
  const sources = new Set<GaugeSource>();
  const launches = new prom.Counter({
    name: "oral_assessments_launches_total", registers,
    help: "Launches answered, by outcome (redirected, waiting, forbidden, platform_busy, …), how the token was served and how the student came.",
    labelNames: ["kind", "via", "outcome", "served_by", ...org],
  });
  const launchSeconds = new prom.Histogram({
    name: "oral_assessments_launch_duration_seconds", registers,
    help: "Time from a launch request to its answer (redirect, waiting page or error page), by how the token was served.",
    labelNames: ["served_by", ...org],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  });
  const platformRequests = new prom.Counter({
    name: "oral_assessments_platform_requests_total", registers,
    help: "HTTP requests sent to the platform (each retry is one), by method, endpoint template and status (or timeout, reset, network, too_large, aborted).",
    labelNames: ["method", "endpoint", "status", ...org],
  });
  const platformRateLimited = new prom.Counter({
    name: "oral_assessments_platform_rate_limited_total", registers,
    help: "Platform answers 429 (rate limited). Should stay 0: the router paces calls inside the key's budget.",
    labelNames: [...org],
  });

  /** Each source's snapshot, read once per scrape and per gauge. */
  const read = (): GaugeSnapshot[] => [...sources].map((source) => source());
  const labelsOf = (s: GaugeSnapshot, extra: Labels = {}): Labels => (organizationLabel ? { ...extra, organization: s.organization } : extra);
  /** A gauge set from the sources at each scrape; summed over organizations without the label. */
  const gauge = (name: string, help: string, labelNames: string[], fill: (set: (labels: Labels, value: number) => void, s: GaugeSnapshot) => void, zero: Labels[]) =>
    new prom.Gauge({
      name, help, registers, labelNames: [...labelNames, ...org],
      collect() {
        this.reset();
        const sums = new Map<string, { labels: Labels; value: number }>();
        const add = (labels: Labels, value: number) => {
          const key = JSON.stringify(labels);
          const held = sums.get(key);
          if (held) held.value += value;
          else sums.set(key, { labels, value });
        };
        // Without the organization label a series exists (at 0) before any organization does.
        if (!organizationLabel) for (const labels of zero) add(labels, 0);
        for (const snapshot of read()) fill((labels, value) => add(labelsOf(snapshot, labels), value), snapshot);
        for (const { labels, value } of sums.values()) this.set(labels, value);
      },
    });

  gauge("oral_assessments_launches_waiting", "On-demand launches waiting for their sign-in token on this instance now.", [],
    (set, s) => set({}, s.waiting), [{}]);
  gauge("oral_assessments_rate_budget_used", "Platform requests in the key's current rate window (fleet-wide with redisFleet).", [],
    (set, s) => set({}, s.budgetUsed), [{}]);
  gauge("oral_assessments_rate_budget_limit", "Platform requests the key may send per rate window.", [],
    (set, s) => set({}, s.budgetLimit), [{}]);
  gauge("oral_assessments_prepared_tokens", "Pre-warmed sign-in tokens of the plans not finished, by state.", ["state"], (set, s) => {
    for (const plan of s.plans) {
      if (plan.state === "finished") continue;
      set({ state: "ready" }, plan.ready);
      set({ state: "pending" }, plan.pending);
      set({ state: "failed" }, plan.failed);
      set({ state: "handed_out" }, plan.handedOut);
      set({ state: "on_demand" }, plan.onDemand);
      set({ state: "expired" }, plan.expired);
    }
  }, TOKEN_STATES.map((state) => ({ state })));
  gauge("oral_assessments_preparation_late_tokens",
    `Students with no usable pre-warmed token yet, in plans whose exam starts within ${LATE_FROM_MS / 60_000} minutes or has started (not finished).`, [],
    (set, s) => {
      const lateFrom = Date.now() + LATE_FROM_MS;
      for (const plan of s.plans) if (plan.state !== "finished" && Date.parse(plan.startAt) <= lateFrom) set({}, plan.pending);
    }, [{}]);

  return { organizationLabel, launches, launchSeconds, platformRequests, platformRateLimited, sources };
}
