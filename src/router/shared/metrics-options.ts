/**
 * The `metrics` option: Prometheus metrics on the app's own `prom-client` registry.
 *
 * `prom-client` is an optional peer dependency, so the registry's type is written here as
 * the few members the router uses (as `PostgresPool` stands for `pg.Pool`): a consumer
 * without `prom-client` still type-checks our declarations, and a real `Registry` fits
 * with no cast.
 */

/** The part of a `prom-client` `Registry` the router uses. */
export interface MetricsRegistry {
  registerMetric(metric: never): void;
  getSingleMetric(name: string): unknown;
  metrics(): Promise<string>;
}

export interface MetricsOptions {
  /**
   * The app's `prom-client` registry (`new Registry()`, or `register`, the default one).
   * The router registers its metrics on it, all named `oral_assessments_…`. Required.
   */
  registry: MetricsRegistry;
  /**
   * Adds an `organization` label (the organization id) to every metric. Off by default:
   * with many organizations each one multiplies the series Prometheus stores. Routers
   * sharing a registry must agree on it. Default false.
   */
  organizationLabel?: boolean;
}
