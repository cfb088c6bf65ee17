/** LTI 1.3 claim names (LTI Core §5.3-5.4, Deep Linking 2.0) and role normalisation. */

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
  deepLinkingSettings: "https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings",
} as const;

export const MESSAGE_TYPES = ["LtiResourceLinkRequest", "LtiDeepLinkingRequest"] as const;
export type MessageType = (typeof MESSAGE_TYPES)[number];

const INSTRUCTOR_ROLES = new Set(["Instructor", "Administrator", "ContentDeveloper", "TeachingAssistant", "Faculty"]);

/**
 * Whether the roles make the user staff of this context. Full URIs
 * (`http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor`, institution roles) and
 * the short forms some platforms send (`"Instructor"`) both count.
 */
export function isInstructorRole(roles: readonly unknown[]): boolean {
  return roles.some((role) => typeof role === "string" && INSTRUCTOR_ROLES.has(role.split(/[#/]/).pop() ?? ""));
}
