/**
 * LTI 1.3 claim names (LTI Core §5.3-5.4, Deep Linking 2.0, AGS, NRPS, PNS), read only by
 * typed-launch.ts, and the course role of a launch.
 */

export const LTI = "https://purl.imsglobal.org/spec/lti/claim/";
export const CLAIM = {
  messageType: `${LTI}message_type`,
  version: `${LTI}version`,
  deploymentId: `${LTI}deployment_id`,
  targetLinkUri: `${LTI}target_link_uri`,
  resourceLink: `${LTI}resource_link`,
  roles: `${LTI}roles`,
  context: `${LTI}context`,
  custom: `${LTI}custom`,
  lis: `${LTI}lis`,
  launchPresentation: `${LTI}launch_presentation`,
  toolPlatform: `${LTI}tool_platform`,
  /** Submission Review: the learner whose submission is shown. */
  forUser: `${LTI}for_user`,
  deepLinkingSettings: "https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings",
  agsEndpoint: "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint",
  namesRoleService: "https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice",
  /** LTI Platform Notification Service 1.0: where the tool registers its notice handlers. */
  platformNotificationService: `${LTI}platformnotificationservice`,
  /** A notice's own claims (PNS): its id, time and type, and a copy's source courses. */
  notice: `${LTI}notice`,
  originContexts: `${LTI}origin_contexts`,
} as const;

export const MESSAGE_TYPES = ["LtiResourceLinkRequest", "LtiDeepLinkingRequest", "LtiSubmissionReviewRequest"] as const;
export type MessageType = (typeof MESSAGE_TYPES)[number];

/**
 * What a launch without any context role is (`lti.rolesWithoutContext`): `"learner"`, or
 * `"institution-instructor"`, an instructor when an institution role is Instructor,
 * Faculty or Administrator (Open edX sends only institution roles).
 */
export type RolesWithoutContext = "learner" | "institution-instructor";

/** Context roles (and their sub-roles) that make the user staff of the course. */
const STAFF = new Set(["Instructor", "TeachingAssistant", "ContentDeveloper", "Administrator"]);
const INSTITUTION_STAFF = new Set(["Instructor", "Faculty", "Administrator"]);

const MEMBERSHIP = "http://purl.imsglobal.org/vocab/lis/v2/membership";
const INSTITUTION = "http://purl.imsglobal.org/vocab/lis/v2/institution/person#";
const LTI11_CONTEXT = "urn:lti:role:ims/lis/";
/** Simple names (LTI Core §A.2.3: allowed for context roles only). */
const SIMPLE = /^[A-Za-z]+$/;

/**
 * The context role a role string names (its principal role: `Instructor` for
 * `membership/Instructor#TeachingAssistant`, `TeachingAssistant` for the simple name), or
 * undefined when it is an institution, system or unknown role.
 */
export function contextRole(role: unknown): string | undefined {
  if (typeof role !== "string") return undefined;
  if (role.startsWith(`${MEMBERSHIP}#`)) return role.slice(MEMBERSHIP.length + 1) || undefined;
  if (role.startsWith(`${MEMBERSHIP}/`)) return role.slice(MEMBERSHIP.length + 1).split("#")[0] || undefined;
  if (role.startsWith(LTI11_CONTEXT)) return role.slice(LTI11_CONTEXT.length).split("/")[0] || undefined;
  return SIMPLE.test(role) ? role : undefined;
}

/**
 * Whether the roles make the user staff of this course: a context role Instructor (and its
 * sub-roles, TeachingAssistant among them), TeachingAssistant, ContentDeveloper or
 * Administrator, as a membership URI, an LTI 1.1 URN or a simple name. Institution and
 * system roles never do (a course Learner who teaches elsewhere is a learner here), except,
 * with `"institution-instructor"`, when the launch carries no context role at all.
 */
export function isInstructorRole(roles: readonly unknown[], withoutContext: RolesWithoutContext = "learner"): boolean {
  const context = roles.map(contextRole).filter((r): r is string => r !== undefined);
  if (context.length > 0) return context.some((r) => STAFF.has(r));
  if (withoutContext === "learner") return false;
  return roles.some((r) => typeof r === "string" && r.startsWith(INSTITUTION) && INSTITUTION_STAFF.has(r.slice(INSTITUTION.length)));
}
