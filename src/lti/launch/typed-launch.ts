/**
 * A launch's verified claims, read once into one typed object (as pylti1.3's message
 * launch and ltijs's `idtoken` are): message type, version, deployment, roles, the course
 * (`context`), the resource link, the exam the link names, the LMS's services (AGS, NRPS,
 * deep linking settings), the student's fields, the launch presentation and the LMS
 * product. Every reader in the tool takes this object; no other file reads a claim
 * (test/lti/one-claim-reader.test.ts), so an LMS quirk's alias is one edit here, and the
 * launch and course binding cannot disagree on the exam a link names.
 *
 * Strings are kept as the LMS sent them (no trimming): what a reader stores, it cuts to
 * its own limit. The claims themselves go only to the app's hooks: all of them
 * (`forHooks`: `lti.student`, `lti.email`, `canLink` at the launch), or the few `kept`
 * with an exam link or a pending choice (`canLaunch`'s `ctx.claims`, `canLink` later).
 */
import { isText } from "../../core/text.js";
import { CLAIM } from "../shared/claims.js";
import { readDeepLinkSettings, type SettingsRead } from "../options/deep-link-settings.js";
import { isLmsUrl } from "../shared/lms-url.js";
import type { RosterMember } from "./roster-member.js";
import type { LtiCourseKey } from "../../store/lti-course-types.js";

/** What a link opens: an oral exam or a role-play. */
export type LinkKind = "oral" | "roleplay";

/** The exam a resource link names. */
export interface LinkedExam {
  kind: LinkKind;
  id: string;
}

/**
 * The custom parameters naming a link's exam, in order: the first one the link carries
 * names it (a `roleplay_id` wins over an `exam_id`). An LMS that sends another name is
 * one line here; the launch and course binding both read it through `readLaunchClaims`.
 */
export const EXAM_PARAMETERS: { name: string; kind: LinkKind }[] = [
  { name: "roleplay_id", kind: "roleplay" },
  { name: "exam_id", kind: "oral" },
];

/** An exam id the platform's routes take (the router's `EXAM_ID_PATTERN`). */
const EXAM_ID = /^[A-Za-z0-9_-]{1,128}$/;

/** The student's own claims (OpenID Connect standard claims and `lis.person_sourcedid`), as sent. */
export interface StudentClaims {
  email?: string;
  givenName?: string;
  familyName?: string;
  name?: string;
  personSourcedId?: string;
}

/** What the AGS endpoint claim offers this link. */
export interface AgsClaim {
  /** The link's own line item, when an https URL (http only on loopback), as every URL an LMS gives. */
  lineItem?: string;
  /** The context's line items container, likewise. */
  lineItems?: string;
  /** The granted scopes (strings up to 255 characters, the first 10). */
  scope: string[];
  /** The claim as JSON, when at most 8 KB (the course's recorded endpoints). */
  json: string | undefined;
}

/** Submission Review 1.0 §3.2: the learner the review is for, as the LMS names them. */
export interface ForUser {
  userId: string;
  name?: string;
  email?: string;
}


/** How to tell the LMS a launch came from (lms-advice.ts). */
export interface LmsHints {
  issuer: string | undefined;
  /** An LMS whose own claims the launch carries (Canvas's, Brightspace's namespaces). */
  vendorClaims: "canvas" | "brightspace" | undefined;
  /** `tool_platform.product_family_code`. */
  productFamilyCode: string | undefined;
}

export interface LaunchClaims {
  /** `iss` and `sub`, when strings. */
  issuer: string | undefined;
  userId: string | undefined;
  version: string | undefined;
  messageType: string | undefined;
  deploymentId: string | undefined;
  targetLinkUri: string | undefined;
  /** The roles claim as sent (an array), undefined when absent or not an array. */
  roles: unknown[] | undefined;
  /** The course: its id when a string of 1-255 characters; its title and label as sent. */
  context: { id?: string; title?: string; label?: string } | undefined;
  resourceLink: { id?: string; title?: string } | undefined;
  /** The exam the link names (`EXAM_PARAMETERS`), undefined when none or not a well-formed id. */
  exam: LinkedExam | undefined;
  /** The custom parameter the link names (or would name) its exam with. */
  examParameter: string;
  services: {
    ags: AgsClaim | undefined;
    /** The NRPS `context_memberships_url`, when an https URL (http only on loopback). */
    membershipsUrl: string | undefined;
    /** The `deep_linking_settings` claim read, or why it cannot be honoured. */
    deepLinking: SettingsRead;
    /** The Platform Notification Service claim: its URL (https; http only on loopback), versions and notice types. */
    notices: { url: string; versions: string[]; noticeTypes: string[] } | undefined;
  };
  student: StudentClaims;
  /** `launch_presentation.document_target`. */
  documentTarget: string | undefined;
  /** Submission Review's `for_user` (the learner whose submission is shown), when its `user_id` is a string of 1-255 characters. */
  forUser: ForUser | undefined;
  lms: LmsHints;
  /** Every verified claim: only for the app's hooks, which the contract hands the claims. */
  forHooks: Readonly<Record<string, unknown>>;
  /** The few claims kept past the launch for `canLaunch` and `canLink` (see keptClaims). */
  kept: Record<string, unknown>;
}

const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);
const objectOf = (v: unknown): Record<string, unknown> | undefined => (typeof v === "object" && v !== null ? (v as Record<string, unknown>) : undefined);

/** The exam a link's custom parameters name, by `EXAM_PARAMETERS`. */
function examOf(custom: Record<string, unknown> | undefined): { exam: LinkedExam | undefined; parameter: string } {
  const first = EXAM_PARAMETERS.find((p) => custom?.[p.name] !== undefined) ?? EXAM_PARAMETERS.find((p) => p.kind === "oral") ?? EXAM_PARAMETERS[0]!;
  const id = custom?.[first.name];
  return { exam: typeof id === "string" && EXAM_ID.test(id) ? { kind: first.kind, id } : undefined, parameter: first.name };
}

function agsOf(value: unknown): AgsClaim | undefined {
  const claim = objectOf(value);
  if (!claim) return undefined;
  const json = JSON.stringify(claim);
  return {
    ...(isLmsUrl(claim.lineitem) ? { lineItem: claim.lineitem } : {}),
    ...(isLmsUrl(claim.lineitems) ? { lineItems: claim.lineitems } : {}),
    scope: Array.isArray(claim.scope) ? claim.scope.filter((s): s is string => isText(s, 255)).slice(0, 10) : [],
    json: json.length <= 8192 ? json : undefined,
  };
}

const texts = (v: unknown): string[] => (Array.isArray(v) ? v.filter((s): s is string => isText(s, 255)).slice(0, 20) : []);

function noticesOf(value: unknown): LaunchClaims["services"]["notices"] {
  const claim = objectOf(value);
  const url = claim?.platform_notification_service_url;
  return claim && isLmsUrl(url) ? { url, versions: texts(claim.service_versions), noticeTypes: texts(claim.notice_types_supported) } : undefined;
}

/** A platform notice's claims (LTI Platform Notification Service 1.0), read once its signature verified. */
export interface NoticeClaims {
  deploymentId: string | undefined;
  version: string | undefined;
  /** `notice.id`, `notice.type`, `notice.timestamp`: strings of 1-255 characters, else undefined. */
  id: string | undefined;
  type: string | undefined;
  timestamp: string | undefined;
  /** The JWT's single-use values: `nonce`, and `jti` when it carries one. */
  nonce: string | undefined;
  jti: string | undefined;
  /** `context.id`: the course the notice is about (a copy's new course). */
  contextId: string | undefined;
  /** `origin_contexts`' first entry: the course a copy was made from. */
  originContextId: string | undefined;
}

export function readNoticeClaims(claims: Record<string, unknown>): NoticeClaims {
  const notice = objectOf(claims[CLAIM.notice]);
  const text = (v: unknown) => (isText(v, 255) ? v : undefined);
  const origins = claims[CLAIM.originContexts];
  return {
    deploymentId: text(claims[CLAIM.deploymentId]), version: str(claims[CLAIM.version]),
    id: text(notice?.id), type: text(notice?.type), timestamp: text(notice?.timestamp),
    nonce: text(claims.nonce), jti: text(claims.jti),
    contextId: text(objectOf(claims[CLAIM.context])?.id),
    // Canvas sends ids; an object with an id is read too.
    originContextId: Array.isArray(origins) ? text(origins[0]) ?? text(objectOf(origins[0])?.id) : undefined,
  };
}

function forUserOf(value: unknown): ForUser | undefined {
  const v = objectOf(value);
  if (!v || !isText(v.user_id, 255)) return undefined;
  const name = isText(v.name, 255) ? v.name : [v.given_name, v.family_name].filter((p) => isText(p, 255)).join(" ") || undefined;
  return { userId: v.user_id, ...(name ? { name } : {}), ...(isText(v.email, 255) ? { email: v.email } : {}) };
}

function vendorOf(claims: Record<string, unknown>): LmsHints["vendorClaims"] {
  const keys = Object.keys(claims);
  if (keys.some((k) => k.startsWith("https://canvas.instructure.com/") || k.startsWith("https://www.instructure.com/"))) return "canvas";
  if (keys.some((k) => k.startsWith("http://www.brightspace.com") || k.startsWith("https://www.brightspace.com"))) return "brightspace";
  return undefined;
}

/** Reads a verified id_token's claims (or a roster member's, made up as a launch's: prepare-course.ts). */
export function readLaunchClaims(claims: Record<string, unknown>): LaunchClaims {
  const context = objectOf(claims[CLAIM.context]);
  const link = objectOf(claims[CLAIM.resourceLink]);
  const lis = objectOf(claims[CLAIM.lis]);
  const { exam, parameter } = examOf(objectOf(claims[CLAIM.custom]));
  const roles = claims[CLAIM.roles];
  return {
    issuer: str(claims.iss),
    userId: str(claims.sub),
    version: str(claims[CLAIM.version]),
    messageType: str(claims[CLAIM.messageType]),
    deploymentId: str(claims[CLAIM.deploymentId]),
    targetLinkUri: str(claims[CLAIM.targetLinkUri]),
    roles: Array.isArray(roles) ? roles : undefined,
    context: context && { id: isText(context.id, 255) ? context.id : undefined, title: str(context.title), label: str(context.label) },
    resourceLink: link && { id: str(link.id), title: str(link.title) },
    exam,
    examParameter: parameter,
    services: {
      ags: agsOf(claims[CLAIM.agsEndpoint]),
      membershipsUrl: ((url) => (isLmsUrl(url) ? url : undefined))(objectOf(claims[CLAIM.namesRoleService])?.context_memberships_url),
      deepLinking: readDeepLinkSettings(claims[CLAIM.deepLinkingSettings]),
      notices: noticesOf(claims[CLAIM.platformNotificationService]),
    },
    student: { email: str(claims.email), givenName: str(claims.given_name), familyName: str(claims.family_name), name: str(claims.name), personSourcedId: str(lis?.person_sourcedid) },
    documentTarget: str(objectOf(claims[CLAIM.launchPresentation])?.document_target),
    forUser: forUserOf(claims[CLAIM.forUser]),
    lms: { issuer: str(claims.iss), vendorClaims: vendorOf(claims), productFamilyCode: str(objectOf(claims[CLAIM.toolPlatform])?.product_family_code) },
    forHooks: claims,
    kept: keptClaims(claims),
  };
}

/** A roster member as their own launch in the course would read (for `lti.student`, `lti.email`, `canLaunch`). */
export function memberLaunch(m: RosterMember, course: LtiCourseKey): LaunchClaims {
  return readLaunchClaims({
    iss: course.issuer, aud: course.clientId, sub: m.user_id, name: m.name, given_name: m.given_name, family_name: m.family_name, email: m.email,
    [CLAIM.deploymentId]: course.deploymentId,
    [CLAIM.context]: { id: course.contextId },
    [CLAIM.roles]: m.roles,
    ...(m.lis_person_sourcedid ? { [CLAIM.lis]: { person_sourcedid: m.lis_person_sourcedid } } : {}),
  });
}

/**
 * The launch naming another exam (a course's copy of the one its link names): the hooks'
 * claims name it too, as the LMS would have had the link been placed for the copy.
 */
export function withExam<T extends LaunchClaims>(launch: T, exam: LinkedExam): T & { exam: LinkedExam } {
  const custom = { ...objectOf(launch.forHooks[CLAIM.custom]), [launch.examParameter]: exam.id };
  return { ...launch, exam, forHooks: { ...launch.forHooks, [CLAIM.custom]: custom } };
}

/** The user id (`sub`) of claims handed to a hook (whole or kept), when a string. */
export const userIdOf = (claims: Readonly<Record<string, unknown>>): string | undefined => (typeof claims.sub === "string" ? claims.sub : undefined);

/** A claim string kept: up to 255 characters, an empty one included (it is what the LMS sent). */
const text = (v: unknown) => isText(v, 255, { min: 0 });

function pick(value: unknown, fields: readonly string[]): Record<string, unknown> | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const out: Record<string, unknown> = {};
  for (const f of fields) {
    const v = (value as Record<string, unknown>)[f];
    if (text(v)) out[f] = v;
    else if (Array.isArray(v)) out[f] = v.filter(text).slice(0, 10);
  }
  return out;
}

/**
 * The few verified claims kept past the launch (with a learner's exam link for
 * `canLaunch`, with an instructor's pending course offer or picker for `canLink`): who
 * (`sub`, `iss`, `aud`), where (deployment, context, resource link), as what (roles) and
 * the SIS id. Not the whole token: an exam link lives in the fleet's store, where a Canvas
 * launch of 20 KB would be waste. Roles are capped at 50, strings at 255 characters.
 */
function keptClaims(claims: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of ["iss", "sub", "aud", "azp", CLAIM.deploymentId, CLAIM.messageType]) {
    const v = claims[name];
    if (text(v)) out[name] = v;
    else if (Array.isArray(v)) out[name] = v.filter(text).slice(0, 10);
  }
  const roles = claims[CLAIM.roles];
  if (Array.isArray(roles)) out[CLAIM.roles] = roles.filter(text).slice(0, 50);
  const context = pick(claims[CLAIM.context], ["id", "label", "title", "type"]);
  if (context) out[CLAIM.context] = context;
  const link = pick(claims[CLAIM.resourceLink], ["id", "title"]);
  if (link) out[CLAIM.resourceLink] = link;
  const lis = pick(claims[CLAIM.lis], ["person_sourcedid", "course_offering_sourcedid", "course_section_sourcedid"]);
  if (lis) out[CLAIM.lis] = lis;
  return out;
}
