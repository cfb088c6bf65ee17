/**
 * The `lti` option of `oralAssessments()`: the router as an LTI 1.3 tool. Each field with
 * its default; resolution and checks (one ConfigurationError for every mistake) are in
 * `settings.ts`.
 */
import type { Request } from "express";
import type { StudentIdentity } from "../../platform/schemas.js";
import type { LtiCourseKey, LtiCourseLink } from "../../store/lti-course-types.js";
import type { LtiStore } from "../../store/lti-types.js";
// Our own JWK type, neither jose's (ESM only: a CommonJS consumer could not resolve its
// types) nor node:crypto's (@types/node 26 no longer exports JsonWebKey).
import type { LtiJsonWebKey } from "../shared/json-web-key.js";
import type { LtiRosterOptions } from "./roster-options.js";
import type { LtiLoginLimitOptions } from "./login-limit.js";

/** One of the tool's RS256 keys. */
export interface LtiToolKey {
  /** Published as the key's `kid`; never reuse a kid for another key. 1-64 letters, digits, `.`, `_` or `-`. */
  kid: string;
  /** The private key: a PKCS#8 PEM (`-----BEGIN PRIVATE KEY-----`) or an RSA private JWK. Never leaves the process. */
  privateKey: string | LtiJsonWebKey;
}

/** A deployment of a registration: its id, or its id and the organization it launches for. */
export type LtiDeployment = string | { id: string; organization?: string };

/** One LMS registration, keyed by (issuer, clientId). */
export interface LtiRegistration {
  /** The platform's issuer (`iss`), e.g. `https://canvas.instructure.com`. */
  issuer: string;
  /** The client id the LMS gave this tool (Canvas: the developer key id). */
  clientId: string;
  /** The LMS's OIDC authorization endpoint (Canvas: `https://sso.canvaslms.com/api/lti/authorize_redirect`). */
  authorizationUrl: string;
  /** The LMS's token endpoint (LTI Advantage services; not used by launches). Optional. */
  tokenUrl?: string;
  /** The LMS's key set; fetched when first needed, cached, refetched on an unknown `kid`. */
  jwksUrl: string;
  /** The deployments launches may come from; any other `deployment_id` is refused. At least one. */
  deployments: LtiDeployment[];
}

/**
 * Dynamic Registration's policy. The URL is public: anyone can make the tool register
 * with a server of theirs, so a stored registration waits for the tool's administrator
 * (`store.setLtiRegistrationActive(issuer, clientId, true)`) unless `autoActivate`.
 */
export interface LtiDynamicRegistrationOptions {
  /** Default `true` once the object is given. */
  enabled?: boolean;
  /**
   * Store new registrations active, so launches work at once. Default `false`. Requires
   * `allowedHosts`: an active registration lets its LMS sign any student in.
   */
  autoActivate?: boolean;
  /** The organization the deployments of a dynamically registered LMS launch for. Default: none (the router's default). */
  organization?: string;
  /**
   * Whether an active stored registration records a deployment id it has not seen at its
   * first launch (naming `organization`). Default `true` (the LMS gives deployment ids only
   * at launch); `false`: an administrator adds each with `store.putLtiDeployment`.
   */
  acceptNewDeployments?: boolean;
  /**
   * Host names whose `openid_configuration` URL may register (`*.example.edu` matches
   * subdomains). Default: any host (https; http on loopback only with `allowLoopbackHttp`).
   */
  allowedHosts?: string[];
  /**
   * Accept plain-http LMS URLs on `localhost`/`127.0.0.1`/`[::1]` (a local LMS, such as
   * the LMS emulator, in development). Default `false`: every URL must be https.
   */
  allowLoopbackHttp?: boolean;
  /** Time limit of each request to the LMS (configuration, registration), ms (500-30 000). Default 5 000. */
  timeoutMs?: number;
  /** Most stored registrations waiting for activation per LMS host; past it, registering is refused. Default 20. */
  maxPending?: number;
  /** The tool's name in the LMS (`client_name`). Default `"Oral assessments"`. */
  toolName?: string;
}

/** `lti.gradebook`: the LMS gradebook (LTI AGS). Every duration in ms. */
export interface GradebookOptions {
  /**
   * The line item's `scoreMaximum` when the tool creates it (deep linking, or Brightspace's
   * missing item): a whole number from 1 to 1 000 000 (the AGS spec takes any positive
   * number; Open edX keeps only whole ones). Default 100.
   */
  scoreMaximum?: number;
  /**
   * `gradesReleased` of the line items the tool creates: whether learners see their grades
   * as they arrive. Blackboard Ultra shows them at once unless told `false`; the others
   * ignore it. Default `false` (the instructor releases them in the LMS).
   */
  gradesReleased?: boolean;
  /** The line item's `tag`: how the tool finds its own items among the course's (1-255 characters). Default `"oral-assessment"`. */
  tag?: string;
  /** How long a launch's return mark (the signed cookie `GET /lti/return` reads) lives, ms (60 000 to 7 days). Default 43 200 000 (12 h: the longest exam day). */
  returnMarkMaxAgeMs?: number;
  /** How often the outbox looks for due scores, ms (10-60 000; a queued score also wakes it at once). Default 1 000. */
  pollMs?: number;
  /** Scores claimed per look (1-500). Default 20. */
  batchSize?: number;
  /** Score posts in flight at once per instance: the LMS's pace (1-64). Default 4. */
  concurrency?: number;
  /** How long a claimed score is this instance's before another may take it (a crash mid-post), ms (1 000-3 600 000). Default 60 000. */
  leaseMs?: number;
  /** The first retry's delay, ms (10-3 600 000); each next one doubles (with ±20 % jitter). Default 2 000. */
  firstRetryMs?: number;
  /** The longest delay between retries, ms (10 to 24 h). Default 3 600 000 (1 h). */
  maxRetryMs?: number;
  /** Attempts before a score is given up as `failed` (the launch record shows it), 1-1 000. Default 48 (about two days at the longest delay). */
  maxAttempts?: number;
  /** Score posts in flight at once to one LMS (the origin of its AGS URLs), per instance (1-16): one slow LMS holds at most this many of `concurrency`. Default 2. */
  perLmsConcurrency?: number;
  /** Time limit of one score post, ms (100-120 000; a roster page has `roster.requestTimeoutMs`). Default 5 000. */
  scoreTimeoutMs?: number;
  /** How long scores sent, given up or superseded are kept (the launch record shows them), days (above 0, up to 36 500). Default 180, as `launchRecord.retentionDays`. */
  retentionDays?: number;
  /**
   * `GET /lti/return` accepted per client address (`req.ip`; IPv6 by /64), fleet-wide in
   * fleet mode: a burst, then one more every `refillMs`. Past it: a 429 page, nothing
   * queued, sent when the address's next token is due (at most 1 s later; at most 16
   * held per address, 1 000 in all). Default `{ burst: 600, refillMs: 100 }` (as the
   * login's per-address limit).
   */
  returnLimit?: { burst?: number; refillMs?: number };
}

/** `lti.email`: the e-mail of a launch's learner, from the app (undefined: not known). */
export type { LtiRosterOptions, LtiLoginLimitOptions };

export type LtiEmailLookup = (claims: Record<string, unknown>, context: { organization: string | undefined }) => string | undefined | Promise<string | undefined>;

/** The student a launch signs in, as the LMS's verified claims give it: the router's `student` type, fields optional. */
export type LtiStudentFields = Partial<StudentIdentity>;

export interface LtiOptions {
  /** The tool's keys, first signs; all are published at `/lti/jwks.json`. Required, at least one. */
  keys: LtiToolKey[];
  /**
   * The LMS registrations this tool trusts. Default none: then only the store's
   * registrations (written by Dynamic Registration) are used. An entry here wins over a
   * stored registration with the same issuer and client id.
   */
  registrations?: LtiRegistration[];
  /**
   * LTI Dynamic Registration at `GET /lti/register`: an LMS administrator pastes that URL
   * and the tool registers itself, stored in the router's store. Default: off (leave it out).
   */
  dynamicRegistration?: LtiDynamicRegistrationOptions;
  /** Where LTI keeps registrations, course links, line items and scores. Default: the router's `store` (it must implement `OralStoreLti`, as the bundled stores do). */
  store?: LtiStore;
  /**
   * The mount's public URL, e.g. `https://app.example.edu/oral`: the base of the tool's
   * login, redirect and key-set URLs. Default: derived from each request (protocol and
   * host as Express reports them, plus the mount path).
   */
  toolUrl?: string;
  /**
   * Least time between two fetches of one LMS key set, ms (0-300 000): a token with a kid
   * the cached set lacks (the LMS rotated its key) refetches the set at most this often.
   * Default 30 000.
   */
  keySetCooldownMs?: number;
  /** Leeway on `exp`, `iat` and `nbf` for the LMS's clock, ms (0-300 000). Default 60 000. */
  clockToleranceMs?: number;
  /**
   * The oldest `iat` accepted, ms (60 000-3 600 000). A login's sealed state opens for the
   * launch this long, but at most 300 s (an LMS answers within seconds). Default 600 000.
   */
  stateTtlMs?: number;
  /** @deprecated `keySetCooldownMs` in seconds; still read, with one warning at start-up. Passing both is a configuration error. */
  keySetCooldownSec?: number;
  /** @deprecated `clockToleranceMs` in seconds; still read, with one warning at start-up. Passing both is a configuration error. */
  clockToleranceSec?: number;
  /** @deprecated `stateTtlMs` in seconds; still read, with one warning at start-up. Passing both is a configuration error. */
  stateTtlSec?: number;
  /**
   * Logins accepted per client address, fleet-wide in fleet mode: `burst` at once, then
   * one more every `refillMs` (see `LtiLoginLimitOptions`). Default `{ burst: 600, refillMs: 100 }`.
   */
  loginLimit?: LtiLoginLimitOptions;
  /**
   * Maps the verified claims to the student. Default: `email`, `given_name`,
   * `family_name`, else `name` split into first and last name (docs/lti.md, "The
   * student's name"); `orgInternalId` from the `lis.person_sourcedid` claim, else `sub`.
   * Whatever it answers is checked at the launch: a learner missing a field the platform
   * requires is refused there, naming the LMS setting.
   */
  student?: (claims: Record<string, unknown>) => LtiStudentFields | undefined;
  /**
   * The learner's e-mail when the launch carries none (the LMS hides it): the app looks it
   * up, e.g. in its own directory by `sub` or `lis.person_sourcedid`. Called only when the
   * student mapping gave no e-mail, with the verified claims and the organization the
   * launch acts for (undefined: the router's own); `undefined` means "not known". Default:
   * none, and a launch without an e-mail is refused at `POST /lti/launch` with a page
   * naming the LMS setting that shares it.
   */
  email?: LtiEmailLookup;
  /**
   * Opt-in: when neither the launch nor `email` gives an e-mail, sign the learner in with
   * a stand-in address made from the LMS user and the issuer,
   * `lti-<8 hex of sha256(iss)>-<sub>@<domain>` (`sub` lower-cased; a `sub` of other
   * characters than letters, digits, `_` and `-`, or longer than 40, is replaced by
   * `h-` and 24 hex of its sha256). The domain should be one you control and that
   * receives no mail (the platform may write to it). Default: off.
   */
  emailStandIn?: { domain: string };
  /**
   * *Prepare this exam for the course* (the course roster through NRPS). Default
   * `{ maxPages: 200, pageSize: 100, requestTimeoutMs: 10 000, formTtlMs: 3 600 000, maxBytes: 134 217 728 }`.
   */
  roster?: LtiRosterOptions;
  /**
   * Whether a launch that carries no context (course) role at all (Open edX sends only
   * institution roles) is a learner (`"learner"`), or an instructor when one of its
   * institution roles is Instructor, Faculty or Administrator (`"institution-instructor"`).
   * Context roles, when present, always decide; institution and system roles never make a
   * course Learner an instructor. Default `"learner"`.
   */
  rolesWithoutContext?: "learner" | "institution-instructor";
  /**
   * Where a learner's launch from inside a frame goes: `"new-window"` answers a page
   * whose *Open the exam* button opens the exam in a new window; `"frame"` opens it in
   * the frame. A launch whose `document_target` is `window` always goes straight on.
   * Default `"new-window"` (exam pages need the microphone and room, which frames often lack).
   */
  framedLaunch?: "new-window" | "frame";
  /**
   * The organization a deployment launches for: called with the deployment's
   * `organization` (undefined when it names none) and the launch request. Default: with
   * the router's `organization` resolver, the deployment's `organization` is the id
   * (none: the resolver's answer for the request); with a single `platform`, that platform
   * (see `OrganizationFor`).
   */
  organizationFor?: OrganizationFor;
  /**
   * Whether this instructor may link the exam's class to their LMS course (course
   * binding: a learner's launch opens an exam only in a course its class is linked to),
   * or copy it into a class of their course (`purpose: "copy"`). Asked for every exam the
   * picker would list, at the choice, at an instructor's launch of a link naming an exam,
   * and before a course copy is offered and made. `claims`: the verified launch's.
   * Default: only a class already linked to this course (`linkedTo === "this-course"`;
   * a class made from this course's picker is linked at once): an exam made in the app's
   * dashboard needs the app's consent (`(claims, ctx) => ctx.linkedTo !== "another-course"`
   * is the earlier default). See docs/lti.md "Who may link what".
   */
  canLink?: CanLink;
  /**
   * Whether this instructor may copy an exam whose class is linked to another LMS course
   * into a new class of their course (a term rollover: the course offer). A copy discloses
   * the exam's questions to the copying course. Asked before the copy is offered and again
   * before it is made. Default: the LMS user (same issuer and `sub`) who linked the
   * original to its course, or whom the app's `canLink` allows (asked with `purpose: "copy"`).
   */
  canCopy?: CanLink;
  /** Development only: send the LMS token to plain-http service URLs on localhost (the LMS emulator). Default `false`: https only. */
  allowLoopbackHttp?: boolean;
  /** Your product and contact after the package's own in the `User-Agent` of LMS calls (1-200 printable ASCII), e.g. `"ExampleU-Exams/1.0 (lms-admin@example.edu)"`. Default: none. */
  userAgent?: string;
  /**
   * The LMS gradebook (LTI AGS, docs/lti.md "The gradebook"): line items, a score at each
   * learner's launch and return, `POST /oral-assessments/:examId/scores`, all through a
   * durable outbox. Default on with the defaults of gradebook/options.ts; `false` turns it off.
   */
  gradebook?: GradebookOptions | false;
}

/** Where the exam's class is linked now, from this course's point of view. */
export type LinkedTo = "none" | "this-course" | "another-course";

/** What `canLink` (and `canCopy`) is asked about. */
export interface CanLinkContext {
  examId: string;
  classId: string;
  /** The organization the launch acts for. */
  organization: string;
  linkedTo: LinkedTo;
  /** `"link"`: link the exam's class to this course; `"copy"`: copy the exam (settings and questions) into a new class linked to it. */
  purpose: "link" | "copy";
  /** The LMS course asking: the launch's issuer, client id, deployment id and `context.id`. */
  course: LtiCourseKey;
  /** The LMS courses the class is linked to now, oldest first, each with who linked it (`linkedBy`, an LMS `sub`) and when. */
  linkedCourses: readonly LtiCourseLink[];
}

export type CanLink = (claims: Record<string, unknown>, ctx: CanLinkContext) => boolean | Promise<boolean>;

/**
 * The seam between LTI and the router's organizations. The router (many organizations)
 * passes a function that turns a deployment's `organization` into the id of the
 * organization the launch acts for; LTI calls it once per verified launch and stores the
 * answer with the exam link, so the link runs under that organization (the router looks
 * the id up again when the link is followed). `undefined` means "the router's own": the
 * single platform, or the resolver's answer for the request. A name the function does not know
 * answers `null`, which refuses the launch with a page for the LMS administrator.
 */
export type OrganizationFor = (deploymentOrganization: string | undefined, req: Request) => string | undefined | null | Promise<string | undefined | null>;
