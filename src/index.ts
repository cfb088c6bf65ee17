/**
 * express-oral-assessments: the public face. Re-exports only; every name here is part
 * of the package's contract. Internals (the error factory, schema helpers, the route
 * table) stay unexported so they can change.
 */
export { ConfigurationError, type ConfigurationProblem } from "./core/configuration-error.js";
export { redactKey } from "./core/redact.js";
export type { Logger } from "./core/logger.js";
export { studentFromUser, splitFullName, type StudentFields } from "./identity/student-from-user.js";

export * from "./platform/index.js";
export * as schemas from "./platform/public-schemas.js";

export * from "./store/index.js";

export { buildOpenApiDocument, type OpenApiDocumentOptions } from "./api/openapi.js";
export type { Problem } from "./router/shared/problem.js";

export {
  oralAssessments, PrepareError, type OralAssessmentsRouter, type OralAssessmentsOptions, type LaunchContext,
  type PrepareOptions, type PrewarmOptions, type PrepareInput, type PrepareProgress,
  type RenderPage, type RouterPage, type RouterPageKind, type RouterPageLink,
} from "./router/index.js";

export {
  redisFleet, fleetReady, inProcessFleet, inProcessLaunchAttempts, waitForAttempt, inProcessPreparedTokens, inProcessPlanLeases, inProcessLaunchLimiter,
  type RedisFleet, type RedisFleetOptions, type Fleet, type InProcessFleetOptions, type FleetRateBudgetStats, type SharedBudget,
  type LaunchAttemptStore, type AttemptOutcome as FleetAttemptOutcome, type AttemptTicket, type AttemptView, type AttemptTimings,
  type PreparedTokenStore, type PreparedToken, type PlanLeaseStore, type PlanLeaseTimings,
  type LaunchLimiter, type LaunchLimitDecision, type LaunchLimitSettings,
} from "./fleet/index.js";
