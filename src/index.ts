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
} from "./router/index.js";
