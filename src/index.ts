/**
 * express-oral-assessments: the public face. Re-exports only, each one a decision:
 * test/public-api.test.ts holds the list, so an export is added or removed on purpose.
 * What integrators use is here; the fleet's building blocks, the error subclasses (branch
 * on `error.kind`), internal constants and helpers are not, so they can change.
 */

// The router.
export {
  oralAssessments, PrepareError, type OralAssessmentsRouter, type OralAssessmentsOptions, type LaunchContext,
  type PrepareOptions, type PrepareInput, type PrepareProgress,
  type RenderPage, type RouterPage, type RouterPageKind, type RouterPageLink,
} from "./router/index.js";
export type { Problem } from "./router/shared/problem.js";
export { buildOpenApiDocument, type OpenApiDocumentOptions } from "./api/openapi.js";
export { studentFromUser, type StudentFields } from "./identity/student-from-user.js";

// The platform client.
export { createPlatformClient } from "./platform/client.js";
export { pathOf } from "./platform/paths.js";
export { PlatformError, type PlatformErrorKind } from "./platform/errors.js";
export type {
  ExamResource, PlatformClient, PlatformClientOptions, PlatformEnv, RequestOptions, RequestPriority, WithMeta,
} from "./platform/types.js";
export type { RateBudget } from "./platform/rate-budget-interface.js";
export * as schemas from "./platform/public-schemas.js";
// Record and input types; the schema values themselves are the `schemas` namespace.
export type {
  Class, ClassCreateInput, ClassUpdateInput, Course, CourseCreateInput, CourseUpdateInput,
  OralAssessment, OralAssessmentCreateInput, OralAssessmentUpdateInput, Roleplay, RoleplayCreateInput,
  RoleplayUpdateInput, SignInToken, SignInTokenRequestInput, StudentIdentity,
} from "./platform/schemas.js";

// Stores: the three built in, and the interface a custom one implements.
export { memoryStore } from "./store/memory.js";
export { sqliteStore, type SqliteStoreOptions } from "./store/sqlite.js";
export { postgresStore, type PostgresStoreOptions } from "./store/postgres.js";
// Every record of a store belongs to one organization; a single-organization router's is this one.
export { DEFAULT_ORGANIZATION } from "./store/types.js";
export type {
  OralStore, CourseRecord, ClassRecord, AssessmentRecord, ExamKind,
  IdempotencyKey, IdempotencyBegin, IdempotencyBeginInput, IdempotencyCompleteInput,
} from "./store/types.js";

// Several instances.
export { redisFleet, fleetReady, type RedisFleet } from "./fleet/redis-fleet.js";
export type { RedisFleetOptions } from "./fleet/options.js";
export type { FleetSecret } from "./fleet/secret.js";
export type { Fleet } from "./fleet/fleet.js";

// Shared.
export { ConfigurationError, type ConfigurationProblem } from "./core/configuration-error.js";
export type { Logger } from "./core/logger.js";
/** The `lti` option (its parts are reachable as `LtiOptions["registrations"][number]`, …). */
export type { LtiOptions } from "./lti/options/options.js";
