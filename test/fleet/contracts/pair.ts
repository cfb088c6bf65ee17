/**
 * What each contract runs against: two instances' views of one shared state (`a`, `b`)
 * and the clock they run on. In process both are the same object (one instance is the
 * whole fleet) on a fake clock; on Redis they are two fleets on the same prefix, i.e. two
 * app instances, on real time.
 */
export interface Pair<T> {
  a: T;
  b: T;
  clock: TestClock;
  close(): Promise<void>;
}

export type MakePair<T> = () => Promise<Pair<T>>;

export interface TestClock {
  /** True when time moves only when told (`pass`). */
  readonly fake: boolean;
  /** The implementation's time, ms since the epoch. */
  now(): number;
  /** Lets `ms` go by: advances a fake clock at once, or sleeps. */
  pass(ms: number): Promise<void>;
}

/**
 * The timings every contract runs with, in process and on Redis alike. Leases, graces and
 * periods are seconds, so an assertion that something still holds has seconds of margin
 * on a loaded machine; what lapses is waited for (`lapses`), on the fake clock at once.
 */
export const TIMINGS = {
  attemptLeaseMs: 2_000,
  outcomeTtlMs: 30_000,
  claimGraceMs: 2_000,
  planLeaseMs: 2_000,
  launchLimit: { burst: 3, refillMs: 2_000, failureBackoffMs: 1_500, maxFailureBackoffMs: 6_000 },
  circuitBreaker: { minFailures: 3, failureRatio: 0.5, windowMs: 60_000, openMs: 2_000, probeLeaseMs: 3_000 },
} as const;

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export const realClock: TestClock = { fake: false, now: () => Date.now(), pass: sleep };

/** A clock that starts at the real time (callers mix in `Date.now()`-style deadlines) and moves only when told. */
export function fakeClock(start = Date.now()): TestClock {
  let t = start;
  return {
    fake: true,
    now: () => t,
    async pass(ms) {
      t += ms;
    },
  };
}

/** How long past its due time a lapse may take on real time before the test fails: a loaded machine is slow, not wrong. */
const REAL_SLACK_MS = 15_000;

/**
 * Waits until `condition` holds, which it must once `dueMs` has gone by (a lease, a grace,
 * an expiry). On a fake clock: moves it just past `dueMs` and checks once. On real time:
 * polls until it holds, failing only `dueMs` + 15 s later. "Not before its time" is each
 * test's own assertion, made while the margin is wide.
 */
export async function lapses(clock: TestClock, dueMs: number, condition: () => Promise<boolean>, what: string): Promise<void> {
  if (clock.fake) {
    await clock.pass(dueMs + 1);
    if (!(await condition())) throw new Error(`${what}: still not so ${dueMs + 1} ms later (fake clock)`);
    return;
  }
  const giveUpAt = Date.now() + dueMs + REAL_SLACK_MS;
  while (!(await condition())) {
    if (Date.now() > giveUpAt) throw new Error(`${what}: still not so ${dueMs + REAL_SLACK_MS} ms later`);
    await sleep(50);
  }
}
