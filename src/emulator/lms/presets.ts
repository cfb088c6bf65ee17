/**
 * The LMS emulator's presets: launches in the shape a real LMS sends them, so a tool (and
 * its tests, docs and example app) meets what Canvas, Moodle, Brightspace, Blackboard,
 * Schoology and Open edX actually post, not an idealised token. Each shape comes from
 * the LMS's public documentation and its tool authors' reports (docs/lti.md's table per
 * LMS; ../shared/LTI.md §8): the issuer, client id and deployment id formats, the login
 * parameters, the token's lifetime, `aud`/`azp`, which user claims arrive (with the LMS's
 * default privacy settings), the roles (context, institution, system, short forms) and
 * the vendor claims a tool must ignore. `emulator` is the emulator's own plain shape.
 */
import { createHash } from "node:crypto";
import type { GradebookRules } from "./gradebook-rules.js";
import type { LmsUser, ResourceLink } from "./mint.js";

export const LMS_PRESETS = ["emulator", "canvas", "moodle", "brightspace", "blackboard", "schoology", "openedx"] as const;
export type LmsPreset = (typeof LMS_PRESETS)[number];

const L = "https://purl.imsglobal.org/spec/lti/claim/";
const LIS = "http://purl.imsglobal.org/vocab/lis/v2/";
const MEMBER = { Instructor: `${LIS}membership#Instructor`, Learner: `${LIS}membership#Learner` };
const INSTITUTION = { Instructor: `${LIS}institution/person#Instructor`, Learner: `${LIS}institution/person#Student` };
const SYSTEM_USER = `${LIS}system/person#User`;

/** Stable hex of `n` characters for a seed (ids that look like the LMS's, the same every run). */
const hex = (seed: string, n = 40) => createHash("sha256").update(seed).digest("hex").slice(0, n);
const uuid = (seed: string) => { const h = hex(seed, 32); return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`; };
const digits = (seed: string, n: number) => BigInt(`0x${hex(seed, 15)}`).toString().padStart(n, "7").slice(0, n);

export interface ShapeContext {
  issuer: string;
  clientId: string;
  deploymentId: string;
  user: LmsUser;
  /** The resource link launched; undefined for a deep-linking request. */
  link: ResourceLink | undefined;
  /** The LMS's own URL (return URLs, service endpoints). */
  base: string;
}

/** How one LMS shapes its launches. */
export interface LmsShape {
  preset: LmsPreset;
  /** The LMS's product name, as its administrators know it. */
  product: string;
  /** The `iss` it signs with; undefined: the emulator's own URL (self-hosted LMSs name themselves by their URL). */
  issuer?: string;
  clientId: string;
  deploymentId: string;
  /** The login parameter naming the deployment: Canvas sends `deployment_id` (canvas-lms#2201). */
  loginDeploymentParam: "lti_deployment_id" | "deployment_id";
  /** Other login parameters it sends. */
  loginExtras: Record<string, string>;
  /** False: a deep-linked item's `lineItem` makes no grade item (Brightspace, for 1.3 links): the tool must create it. Default true. */
  linkLineItems?: boolean;
  /**
   * Whether its `lti_message_hint` works once: Moodle's auth step unsets the hint's launch id
   * on first use, Canvas answers `launch_no_longer_valid`. Each login then carries a fresh
   * hint, and a replayed one is refused at `/auth`. Default false (reusable).
   */
  singleUseHint?: boolean;
  /** Whether it offers the Platform Notification Service (notices.ts): the claim in launches, handler registration, copy notices. Default false. */
  notices?: boolean;
  /** How its gradebook applies a score (gradebook-rules.ts). Default `spec`. */
  gradebook?: GradebookRules;
  /** Whether it offers Platform Storage through its `post_message_forwarding` frame (`lti_storage_target`). */
  platformStorage: boolean;
  /** Seconds from `iat` to `exp`. */
  lifetimeSec: number;
  /** `launch_presentation.document_target` it always sends; undefined: the link's. */
  documentTarget?: "iframe" | "window";
  /** The token's `aud` (a string, or an array). */
  audience(clientId: string): string | string[];
  /** Rewrites the emulator's plain claims into the LMS's (the same object, changed, or a new one). */
  claims(plain: Record<string, unknown>, ctx: ShapeContext): Record<string, unknown>;
}

const contextRoles = (u: LmsUser) => [MEMBER[u.role]];

const SHAPES: Record<LmsPreset, Omit<LmsShape, "preset">> = {
  emulator: {
    product: "LMS emulator", clientId: "lms-client-1", deploymentId: "deployment-1",
    loginDeploymentParam: "lti_deployment_id", loginExtras: {}, platformStorage: true, lifetimeSec: 300,
    audience: (clientId) => clientId,
    claims: (plain) => plain,
  },
  canvas: {
    // Canvas cloud: one issuer for every school; a developer key's id as client id; `id:hash` deployments.
    product: "Canvas", issuer: "https://canvas.instructure.com", clientId: "10000000000042", deploymentId: `189:${hex("canvas-deployment")}`,
    loginDeploymentParam: "deployment_id", loginExtras: { canvas_region: "us-east-1", canvas_environment: "prod" }, gradebook: "canvas",
    singleUseHint: true, notices: true, platformStorage: true, lifetimeSec: 3600, documentTarget: "iframe",
    audience: (clientId) => clientId,
    claims: (plain, { user, clientId, link, base }) => ({
      ...plain,
      azp: clientId,
      sub: uuid(`canvas-user-${user.id}`),
      picture: `${base}/images/messages/avatar-50.png`,
      locale: "en",
      [`${L}roles`]: [INSTITUTION[user.role], ...contextRoles(user), SYSTEM_USER],
      [`${L}context`]: { id: hex("canvas-course-1"), label: "ORAL-101", title: "Oral exams 101", type: ["http://purl.imsglobal.org/vocab/lis/v2/course#CourseOffering"], validation_context: null, errors: { errors: {} } },
      ...(link ? { [`${L}resource_link`]: { id: link.id, description: null, title: link.title, validation_context: null, errors: { errors: {} } } } : {}),
      [`${L}tool_platform`]: { guid: `${hex("canvas-root-account")}:canvas-lms`, name: "Emulated School", version: "cloud", product_family_code: "canvas", validation_context: null, errors: { errors: {} } },
      [`${L}launch_presentation`]: { document_target: "iframe", return_url: `${base}/course?user=${encodeURIComponent(user.id)}`, locale: "en", height: 400, width: 800 },
      [`${L}lti11_legacy_user_id`]: hex(`canvas-legacy-${user.id}`),
      [`${L}lti1p1`]: { user_id: hex(`canvas-legacy-${user.id}`), validation_context: null, errors: { errors: {} } },
      "https://www.instructure.com/placement": link ? "link_selection" : "editor_button",
      "https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice": { context_memberships_url: `${base}/api/lti/courses/1/names_and_roles`, service_versions: ["2.0"], validation_context: null, errors: { errors: {} } },
      errors: { errors: {} },
    }),
  },
  moodle: {
    // Moodle: `aud` a string and no azp, 60 s tokens (oauth_helper::sign_jwt), the tool type id as deployment.
    product: "Moodle", clientId: "eW9vZGxlLWNsaWVudA", deploymentId: "3",
    loginDeploymentParam: "lti_deployment_id", loginExtras: {}, singleUseHint: true, platformStorage: false, lifetimeSec: 60, gradebook: "moodle",
    audience: (clientId) => clientId,
    claims: (plain, { user, base }) => ({
      ...plain,
      sub: digits(`moodle-${user.id}`, 3),
      [`${L}roles`]: [user.role],
      [`${L}context`]: { id: "2", label: "ORAL-101", title: "Oral exams 101", type: ["CourseSection"] },
      [`${L}tool_platform`]: { product_family_code: "moodle", version: "2024100700", guid: new URL(base).host, name: "Moodle", description: "Moodle" },
      [`${L}lis`]: { person_sourcedid: user.sourcedId, course_section_sourcedid: "" },
      [`${L}ext`]: { user_username: user.id, lms: "moodle-2" },
      [`${L}launch_presentation`]: { locale: "en", document_target: (plain[`${L}launch_presentation`] as { document_target?: string } | undefined)?.document_target ?? "iframe", return_url: `${base}/mod/lti/return.php?course=2` },
    }),
  },
  brightspace: {
    // Brightspace: `"email": ""` when the deployment does not share e-mail; upper-case GUID deployments; `sub` = `<tenant>_<user id>`.
    product: "Brightspace", issuer: "https://school.brightspace.com", clientId: uuid("brightspace-client"), deploymentId: uuid("brightspace-deployment").toUpperCase(),
    loginDeploymentParam: "lti_deployment_id", loginExtras: {}, platformStorage: false, lifetimeSec: 300, linkLineItems: false,
    audience: (clientId) => clientId,
    claims: (plain, { user }) => {
      const tenant = uuid("brightspace-tenant");
      const userId = digits(`brightspace-${user.id}`, 3);
      return {
        ...plain,
        sub: `${tenant}_${userId}`,
        email: "",
        [`${L}roles`]: [INSTITUTION[user.role], ...contextRoles(user)],
        [`${L}tool_platform`]: { guid: tenant, name: "Emulated School", version: "20.24.10", product_family_code: "desire2learn" },
        "http://www.brightspace.com": { tenant_id: tenant, org_defined_id: user.sourcedId, user_id: Number(userId), username: user.id, "Context.id.history": "", "ResourceLink.id.history": "" },
      };
    },
  },
  blackboard: {
    // Blackboard Learn: one issuer, UUID client and deployment ids, the tool in a new window.
    product: "Blackboard", issuer: "https://blackboard.com", clientId: uuid("blackboard-client"), deploymentId: uuid("blackboard-deployment"),
    loginDeploymentParam: "lti_deployment_id", loginExtras: {}, platformStorage: false, lifetimeSec: 300, documentTarget: "window",
    audience: (clientId) => clientId,
    claims: (plain, { user, base }) => ({
      ...plain,
      sub: hex(`blackboard-${user.id}`, 32),
      [`${L}roles`]: [...contextRoles(user), INSTITUTION[user.role], SYSTEM_USER],
      [`${L}tool_platform`]: { guid: hex("blackboard-site", 32), name: "Emulated School", version: "3900.100.0-rel.45", product_family_code: "BlackboardLearn" },
      [`${L}launch_presentation`]: { document_target: "window", return_url: `${base}/course?user=${encodeURIComponent(user.id)}`, locale: "en-US" },
      "https://blackboard.com/lti/claim/one_time_session_token": `${hex(`bb-session-${user.id}`, 32)}:${hex("bb-course", 32)}`,
    }),
  },
  schoology: {
    // Schoology: `aud` an array with the one client id, no azp (oli-torus PR#2873).
    product: "Schoology", issuer: "https://schoology.schoology.com", clientId: digits("schoology-client", 10), deploymentId: `${digits("schoology-client", 10)}-${digits("schoology-school", 10)}`,
    loginDeploymentParam: "lti_deployment_id", loginExtras: {}, platformStorage: false, lifetimeSec: 300,
    audience: (clientId) => [clientId],
    claims: (plain, { user }) => ({
      ...plain,
      sub: digits(`schoology-${user.id}`, 9),
      [`${L}tool_platform`]: { guid: digits("schoology-school", 10), name: "Emulated School", product_family_code: "schoology", version: "1.0" },
    }),
  },
  openedx: {
    // Open edX's lti_1p3 consumer: `name` only (PII sharing on), no context roles, deployment "1".
    product: "Open edX", clientId: uuid("openedx-client"), deploymentId: "1",
    loginDeploymentParam: "lti_deployment_id", loginExtras: {}, platformStorage: false, lifetimeSec: 3600,
    audience: (clientId) => clientId,
    claims: (plain, { user }) => {
      const { given_name: _g, family_name: _f, [`${L}lis`]: _l, [`${L}tool_platform`]: _t, ...rest } = plain;
      return {
        ...rest,
        sub: hex(`openedx-${user.id}`, 32),
        [`${L}roles`]: user.role === "Instructor" ? [`${LIS}system/person#Administrator`, `${LIS}institution/person#Instructor`] : [`${LIS}institution/person#Student`],
        [`${L}context`]: { id: "course-v1:Emulated+ORAL101+2026", label: "course-v1:Emulated+ORAL101+2026", title: "Oral exams 101", type: ["http://purl.imsglobal.org/vocab/lis/v2/course#CourseOffering"] },
      };
    },
  },
};

export function lmsShape(preset: LmsPreset): LmsShape {
  const shape = SHAPES[preset];
  if (!shape) throw new Error(`unknown LMS preset ${String(preset)}; one of ${LMS_PRESETS.join(", ")}`);
  return { preset, ...shape };
}
