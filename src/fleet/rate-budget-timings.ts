/**
 * The shared rate budget's timings (redis-rate-budget.ts, budget-fallback.ts,
 * reservation-sleep.ts), each with why it is what it is. The window's epoch has its own
 * (`FORGET_EPOCH_WINDOWS`, next to the epoch in redis-rate-budget.ts).
 */

/** How much of a reservation's sleep passes before an outage (or a shorter real window) is noticed, at most. */
export const WAKE_EVERY_MS = 1000;
/** A long reservation is looked at again this often: the fleet may have learnt a shorter real window since. */
export const RECHECK_EVERY_MS = 5000;
/** How long a launch's reservation keeps normal calls back after its time, if its instance died. */
export const LAUNCH_GRACE_MS = 2000;
/** In-flight lease: longer than any call's deadline; lapses only when an instance died mid-call. */
export const FLIGHT_LEASE_MS = 120_000;
/** How long shared platform facts (limit, detected window) are kept without a new observation, in windows (10 min at 60 s). */
export const META_TTL_WINDOWS = 10;
/** Lease of the one probe sent while the window is taken to be full: longer than a call's timeout, short if its instance died. */
export const PROBE_LEASE_MS = 15_000;
/** How often a call held by the fallback looks whether Redis is back (it then goes through Redis). */
export const LOOK_FOR_REDIS_MS = 100;
/**
 * After Redis came back empty, how long instances may still be reconnecting (ioredis
 * retries at most every 2 s, then the first command): their fallback share is kept meanwhile.
 */
export const RETURN_WITHIN_MS = 3000;
