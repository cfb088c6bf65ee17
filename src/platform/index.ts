/**
 * The platform client's public face: what `express-oral-assessments` re-exports for
 * integrators who use the client on its own. Internals (transport, call pipeline, response
 * readers) stay unexported so they can change.
 */
export { createPlatformClient } from "./client.js";
export { pathOf } from "./paths.js";
export { createRateBudget } from "./rate-budget.js";
export type { KeyLimit, RateBudget, RateBudgetOptions, RateBudgetStats, RateLimitObservation, ReleaseFn } from "./rate-budget.js";
export type { HttpMethod } from "./retry.js";
export type {
  ExamResource, PlatformClient, PlatformClientOptions, PlatformEnv, RequestOptions, RequestPriority, WithMeta,
} from "./types.js";
export {
  PlatformError, PlatformInvalidRequestError, PlatformValidationError, PlatformAuthError,
  PlatformPermissionError, PlatformNotFoundError, PlatformConflictError, PlatformRateLimitError,
  PlatformServerError, PlatformTimeoutError, PlatformNetworkError, PlatformBadResponseError,
} from "./errors.js";
export type { PlatformErrorInit, PlatformErrorKind } from "./errors.js";
// Record and input types; the schema values themselves are public as the `schemas` namespace.
export type {
  Class, ClassCreateInput, ClassUpdateInput, Course, CourseCreateInput, CourseUpdateInput, Language, ListFilter, Meta,
  OralAssessment, OralAssessmentCreateInput, OralAssessmentUpdateInput, QuestionInput, Roleplay, RoleplayCreateInput,
  RoleplayUpdateInput, SignInToken, SignInTokenRequestInput, StudentIdentity,
} from "./schemas.js";
export { ConfigurationError } from "../core/configuration-error.js";
export type { ConfigurationProblem } from "../core/configuration-error.js";
export type { Logger } from "../core/logger.js";
