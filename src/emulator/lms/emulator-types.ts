/**
 * The LMS emulator's options and handle: what `createLmsEmulator` takes and gives (index.ts
 * builds it). Apart so the builder stays one concern and under 300 lines.
 */
import type { webcrypto } from "node:crypto";
import type { DeepLinkingRequestOptions, DeepLinkReturn } from "./deep-linking.js";
import type { CopyCourseInput, NoticeSent } from "./notices.js";
import type { CertificationLaunch } from "./certification.js";
import type { LmsFault } from "./faults.js";
import type { LmsUser, ResourceLink } from "./mint.js";
import type { MembershipCounts, RosterMember } from "./memberships.js";
import type { LmsPreset } from "./presets.js";
import type { RegistrationFault, ToolRegistration } from "./registration.js";
import type { TokenCounts } from "./token.js";
import type { GradebookCounts, LmsLineItem, LmsScore } from "./gradebook.js";
import type { LmsResult } from "./gradebook-rules.js";

export interface LmsEmulatorOptions {
  /** Port on 127.0.0.1's `host`. Default 0 (any free port). */
  port?: number;
  /** Host the LMS listens on and names itself by. Default `localhost` (a site other than the tool's 127.0.0.1 in tests). */
  host?: string;
  /**
   * Which LMS's launches to mint (presets.ts, docs/lti.md's table per LMS): its issuer,
   * client and deployment id formats, login parameters, token lifetime, `aud`, user claims
   * and roles. Default `"emulator"` (the plain shape: its URL as issuer, `lms-client-1`,
   * `deployment-1`, every user claim, membership roles).
   */
  preset?: LmsPreset;
  /** Default the preset's (`"lms-client-1"` for `emulator`). */
  clientId?: string;
  /** Default the preset's (`"deployment-1"` for `emulator`). */
  deploymentId?: string;
  /**
   * The course's users. Default an instructor (`instructor-1`) and two learners
   * (`student-1`, `student-2`); a benchmark passes hundreds of learners.
   */
  users?: readonly LmsUser[];
  /**
   * The LMS's first signing key: an extractable RS256 private key, e.g.
   * `(await generateKeyPair("RS256", { extractable: true })).privateKey` from jose; it is
   * published under a kid of this LMS's own. Default: a new key, made at start (0.1–0.4 s of
   * CPU). A suite that starts many LMSs can make a few keys once and hand them out in turn,
   * as long as two LMSs whose tokens must not pass for each other's never share one.
   * `rotateKey()` always makes a new key.
   */
  signingKey?: webcrypto.CryptoKey;
}

export interface LmsEmulator {
  readonly url: string;
  /** The preset whose launches it mints (`emulator` by default). */
  readonly preset: LmsPreset;
  /** The LMS's product name (`Canvas`, `Moodle`, …; `LMS emulator` for the plain shape). */
  readonly product: string;
  readonly issuer: string;
  /** The client id launches carry: the constructor's, or the latest one Dynamic Registration issued. */
  readonly clientId: string;
  readonly deploymentId: string;
  readonly authorizationUrl: string;
  readonly jwksUrl: string;
  readonly users: readonly LmsUser[];
  /** How many times the key set was fetched (a tool's cache shows here). */
  readonly jwksFetches: number;
  /** The registration to give the tool: `oralAssessments({ lti: { keys, registrations: [lms.registration()] } })`. */
  registration(deployments?: (string | { id: string; organization?: string })[]): { issuer: string; clientId: string; authorizationUrl: string; jwksUrl: string; tokenUrl: string; deployments: (string | { id: string; organization?: string })[] };
  /**
   * Tells the LMS where the tool lives (its mount URL, e.g. `http://127.0.0.1:3000/oral`):
   * a manual registration. `scopes`: the LTI Advantage scopes its administrator enabled
   * (Canvas: the developer key's LTI Advantage Services; Moodle: the tool's Services); the
   * token endpoint refuses any other with `invalid_scope`. Default: every AGS and NRPS scope.
   */
  registerTool(toolUrl: string, options?: { scopes?: readonly string[] }): void;
  /**
   * Starts Dynamic Registration as an administrator's *Register by URL* does: answers the
   * URL to open (the tool's registration URL with `openid_configuration` and a fresh
   * single-use `registration_token`). Once the tool registers, launches use its new client id.
   */
  dynamicRegistrationUrl(toolRegisterUrl: string): string;
  /** A page (for a browser) framing the tool's registration URL, as Canvas does. */
  dynamicRegistrationPageUrl(toolRegisterUrl: string): string;
  /** Every registration the LMS accepted, oldest first. */
  readonly toolRegistrations: readonly ToolRegistration[];
  /** Makes Dynamic Registration fail one way (undefined: sound). */
  setRegistrationFault(fault: RegistrationFault | undefined): void;
  /** Adds a resource link placing an exam (custom `exam_id`, or `roleplay_id`). */
  addResourceLink(link: Omit<ResourceLink, "id"> & { id?: string }): ResourceLink;
  /** The login request a click on `linkId` by `userId` sends to the tool: its URL (GET form). */
  loginUrl(userId: string, linkId: string, extra?: Record<string, string>): string;
  /**
   * Opens a deep-linking request (an instructor's *Add an oral exam*) and answers its id:
   * use it wherever a link id goes (`loginUrl`, `coursePageUrl`); the launch is then an
   * `LtiDeepLinkingRequest` returning to `/deep-link-return`.
   */
  openDeepLinking(options?: DeepLinkingRequestOptions): string;
  /** Every deep-linking response received, verified (with the links it added) or refused (why). */
  readonly deepLinkReturns: readonly DeepLinkReturn[];
  /** A page (for a browser) opening a new deep-linking request as this user, framed as Canvas does. Default user `instructor-1`. */
  addExamPageUrl(userId?: string): string;
  /** The course's home as this user sees it: the placed links, and *Add an oral exam* for an instructor. Default user `instructor-1`. */
  courseUrl(userId?: string): string;
  /** Course page framing the tool for this user and link. */
  coursePageUrl(userId: string, linkId: string): string;
  /** Mints the next launch tokens with this fault (undefined: sound tokens). */
  setFault(fault: LmsFault | undefined): void;
  /** A new signing key under a new kid; the old one stays published unless `retire`. */
  rotateKey(retire?: boolean): Promise<string>;
  /** Claims added to (or, with undefined, removed from) every launch token. */
  setClaims(extra: Record<string, unknown>): void;
  /**
   * Mints the next launch tokens as the certification guide's test of that `name` (its test
   * name, "No KID Sent in JWT header"; certification.ts: its fault and claims), and answers the
   * test (its section, who launches); undefined: sound tokens again.
   */
  setCertificationTest(name: string | undefined): CertificationLaunch | undefined;
  /** What the token endpoint (`POST /token`) did: requests, tokens issued, refusals. */
  readonly tokenCounts: TokenCounts;
  /** `expires_in` of the next access tokens, seconds. Default 3600. */
  setTokenLifetime(sec: number): void;
  /** Forgets every access token issued: services answer 401 until the tool asks for a new one. */
  revokeTokens(): void;
  /** The course's gradebook page (line items × learners: latest activity, grading progress, score, comment, and *View submission*). */
  gradebookUrl(): string;
  /**
   * Opens a Submission Review of link `linkId` for the learner whose LMS user id (`sub`) is
   * `userId` (one who launched), as the gradebook's *View submission* does; answers its id,
   * to use wherever a link id goes (`coursePageUrl`, `loginUrl`). Undefined: no such link or learner.
   */
  openSubmissionReview(linkId: string, userId: string): string | undefined;
  /** Every line item of the course (the LMS's own and the tool's). */
  readonly lineItems: readonly LmsLineItem[];
  /** Every score received, oldest first. */
  readonly scores: readonly LmsScore[];
  /** A learner's result on a line item (its URL) as the LMS keeps it, after its rules (Canvas clears, Moodle's None type saves nothing). */
  gradebookResult(lineItemUrl: string, userId: string): LmsResult | undefined;
  /** An instructor's grade typed by hand in the LMS's gradebook (the line item's `scoreMaximum`). */
  enterGrade(lineItemUrl: string, userId: string, grade: { scoreGiven: number; comment?: string }): void;
  /** A line item's grade type: Moodle's `none` answers 200 to a score and saves nothing. */
  setGradeType(lineItemUrl: string, type: "value" | "none"): void;
  readonly gradebookCounts: GradebookCounts;
  /** Answers 503 with `Retry-After` to every AGS call for `ms` (an LMS outage). */
  setGradebookOutage(ms: number): void;
  /** NRPS pages answered (50 members a page, as Canvas). */
  readonly membershipCounts: MembershipCounts;
  /** The course's NRPS roster: its users, then `extra`, then generated learners up to `size` members (default 150); `padBytes`: an extra claim of that many characters on each member. */
  setRoster(roster: { size?: number; extra?: readonly RosterMember[]; padBytes?: number }): void;
  /** `"unauthorized"`: NRPS answers 401 to every page, even with a fresh token. */
  setMembershipsFault(fault: "unauthorized" | undefined): void;
  /** The course's `context.id` as this preset's launches name it (a course copy's default origin). */
  readonly courseId: string;
  /**
   * A course copy (presets offering the Platform Notification Service: Canvas): sends the
   * tool's registered `LtiContextCopyNotice` handler a notice that course `to` was copied
   * from `from` (default `courseId`), and answers what the handler said. Throws when no
   * handler is registered. Also `POST /control/copy-course` with JSON `{ to, from?, title? }`.
   */
  copyCourse(input: CopyCourseInput): Promise<NoticeSent>;
  /** The notice handlers the tool registered, by notice type. */
  readonly noticeHandlers: ReadonlyMap<string, string>;
  /** Handler registrations accepted and refused (400), notices sent. */
  readonly noticeCounts: { registrations: number; refused: number; sent: number };
  close(): Promise<void>;
}
