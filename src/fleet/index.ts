/** Fleet mode's public face. */
export { redisFleet, fleetReady, type RedisFleet } from "./redis-fleet.js";
export { inProcessFleet, type Fleet, type InProcessFleetOptions, type SharedBudget, type FleetRateBudgetStats } from "./fleet.js";
export type { RedisFleetOptions } from "./options.js";
export { inProcessLaunchAttempts, waitForAttempt, type LaunchAttemptStore, type AttemptOutcome, type AttemptTicket, type AttemptView, type AttemptTimings } from "./launch-attempts.js";
export { inProcessPreparedTokens, type PreparedTokenStore, type PreparedToken } from "./prepared-tokens.js";
export { inProcessPlanLeases, type PlanLeaseStore, type PlanLeaseTimings } from "./plan-lease.js";
export { inProcessLaunchLimiter, type LaunchLimiter, type LaunchLimitDecision, type LaunchLimitSettings } from "./launch-limiter.js";
