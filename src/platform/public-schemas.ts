/**
 * The zod schemas integrators may use (the package's `schemas` namespace): the
 * platform's request and record shapes, and the one `StudentIdentity`. A deliberate
 * list rather than `export *` of `schemas.ts`: the helpers there (`issuesOf`,
 * `unwrapEnvelope`) are internals that may change. A new public schema is
 * added here.
 */
export {
  RecordId, IsoDateTime, ClassMode, ExamType, Language, LANGUAGE_CODES, EvaluationStrategy, Criteria, Meta,
  CourseCreate, CourseUpdate, ClassCreate, ClassUpdate, Question, OralAssessmentCreate, OralAssessmentUpdate, ListFilter,
  RoleplayCreate, RoleplayUpdate, ROLEPLAY_LIMITS, StudentIdentity, SignInTokenRequest,
  Course, Class, OralAssessment, Roleplay, SignInToken, ErrorBody,
} from "./schemas.js";
