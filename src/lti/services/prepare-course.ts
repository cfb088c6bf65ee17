/**
 * *Prepare this exam for the course*: from the instructor's page in the LMS (an
 * instructor's launch of a placed oral exam), the course roster read through NRPS
 * (roster.ts) goes into the router's existing `prepare` (src/router/prepare/: the same
 * plan, progress and fleet lease as `POST <mount>/oral-assessments/:examId/prepare`).
 *
 * - The form is bound to the verified launch by a random id kept in the fleet's
 *   single-use store (`lti.roster.formTtlMs`) with what the post needs (never a token),
 *   and to the launch's browser (a hash of its LTI cookie, browser-id.ts): posted from
 *   another browser, or again once used, it is a 410 and nothing is read. It is taken for
 *   the roster read (one read in flight per exam and course: another post meanwhile is
 *   the 409 "being prepared" page), used up once the plan starts, and put back when the
 *   read or the preparation failed, so the instructor may try again.
 * - `POST <mount>/lti/prepare` (fields `form`, `startAt`, `tzOffsetMin`): reads the
 *   roster, maps each active learner as a launch would (`lti.student`, `lti.email`,
 *   `lti.emailStandIn`), asks `canLaunch` with the member as an LTI launch would carry
 *   it (`via: "lti"`, the member's claims; the request is the instructor's post), and
 *   prepares those who pass. The page lists who was left out and why, and the capacity plan.
 * - `GET <mount>/lti/prepare/:progress`: the plan's progress, under an id of its own made
 *   when the plan started (read-only: the form's id, which posts, is in no URL).
 */
import type { Request, Response } from "express";
import type { Logger } from "../../core/logger.js";
import { randomId } from "../../core/random-id.js";
import { browserIdOf, shortHash } from "../shared/browser-id.js";
import type { Registration } from "../lms/registrations.js";
import { isWholeNumber } from "../../core/whole-number.js";
import type { SingleUseStore } from "../../fleet/single-use.js";
import type { LtiCourseKey } from "../../store/lti-course-types.js";
import { capacityPlan } from "../shared/capacity-plan.js";
import { coursePreparedPage, nextStep, progressPage, type LeftOut, type ProgressView } from "./prepare-course-page.js";
import { humanTime } from "../../core/human-time.js";
import { escapeHtml } from "../../core/html.js";
import { frameForLaunch } from "../launch/launch-frame.js";
import { sendLtiPage } from "../shared/pages.js";
import type { RegistrationSource } from "../lms/registration-source.js";
import { readRoster } from "./roster.js";
import type { LtiRosterSettings } from "../options/roster-options.js";
import { LTI_SCOPES, ServiceAccessError, type ServiceAccess } from "../lms/service-access.js";
import type { LtiSettings } from "../settings/settings.js";
import { studentOfLaunch } from "../launch/launch-student.js";
import { toolBase } from "../shared/tool-url.js";
import { memberLaunch } from "../launch/typed-launch.js";
import type { StudentIdentity } from "../../platform/schemas.js";

/** What the LTI side needs of the organization's preparation (the router's, see lti-mount.ts). */
export interface CoursePreparer {
  /** Starts (or replaces) the plan; `refused`: why the router's prepare refused it (e.g. `prepare.maxRoster`). */
  prepare(examId: string, input: { startAt: string; roster: StudentIdentity[] }): Promise<ProgressView | { refused: string }>;
  progress(examId: string): Promise<ProgressView | undefined>;
  /** The key's sign-in requests per minute, the token's life and the share preparing uses: the capacity plan's inputs. */
  ratePerMinute: number;
  tokenLifeMs: number;
  budgetShare: number;
  /** `prepare.maxRoster`: the roster read stops as soon as its learners pass it. */
  maxRoster: number;
}

export interface PrepareCourseDeps {
  settings: LtiSettings;
  roster: LtiRosterSettings;
  access: ServiceAccess;
  source: RegistrationSource;
  forms: SingleUseStore;
  logger: Logger;
  frameAncestors: readonly string[];
  /** The organization's preparation, when this request may act for it. */
  preparerFor(req: Request, org: string): Promise<CoursePreparer | undefined>;
  /** The router's `canLaunch`, asked per member; undefined: every member may. */
  canLaunch: ((req: Request, ctx: { examId: string; classId: string; courseId: string | undefined; student: StudentIdentity; via: "lti"; claims: Record<string, unknown> }) => boolean | Promise<boolean>) | undefined;
}

interface Form {
  org: string;
  course: LtiCourseKey;
  examId: string;
  examName: string;
  classId: string;
  courseId: string | undefined;
  membershipsUrl: string;
  rlid: string | undefined;
  /** `shortHash` of the browser id the instructor's launch carried (browser-id.ts); undefined: it carried none. */
  browserHash?: string | undefined;
}

/** What the read-only progress page needs: never the form's id, which posts. `issuer`, `clientId`: its launch's LMS, the only one that may frame it. */
interface ProgressRef { org: string; examId: string; examName: string; issuer?: string; clientId?: string }

const formKey = (id: string) => `lti-prepare:${id}`;
const progressKey = (id: string) => `lti-prepare-progress:${id}`;
/** Set (before the form is taken) while a post of this form reads the roster: another post is told "being prepared", not "expired". */
const busyKey = (id: string) => `lti-prepare-busy:${id}`;
/** The roster read in flight for one exam in one LMS course (a hash of both: keys stay short). */
const readingKey = (form: Form) => `lti-prepare-reading:${shortHash(JSON.stringify([form.org, form.course.issuer, form.course.clientId, form.course.deploymentId, form.course.contextId, form.examId]))}`;
const ID = /^[A-Za-z0-9_-]{1,128}$/;
/** Members named on the page at most (the rest are counted). */
const LISTED = 200;

/** The instructor page's form (HTML), kept for `formTtlMs`, bound to the browser the launch came from. */
export async function prepareCourseForm(req: Request, form: Omit<Form, "browserHash">, deps: Pick<PrepareCourseDeps, "forms" | "roster" | "settings">): Promise<string> {
  const id = randomId(24);
  const browserId = browserIdOf(req);
  const bound: Form = { ...form, browserHash: browserId === undefined ? undefined : shortHash(browserId) };
  await deps.forms.put(formKey(id), JSON.stringify(bound), deps.roster.formTtlMs);
  const action = `${toolBase(req, deps.settings.toolUrl)}/lti/prepare`;
  return `<h2>Prepare this exam for the course</h2><form id="prepare-course" method="post" action="${escapeHtml(action)}">`
    + `<input type="hidden" name="form" value="${escapeHtml(id)}"><input type="hidden" name="tzOffsetMin" id="tz" value="0">`
    + `<p><label>Exam starts at <input type="datetime-local" name="startAt" required></label> <small id="tz-name">(UTC)</small></p>`
    + `<p><button id="prepare-course-button">Prepare this exam for the course</button> Reads the course roster from the LMS and makes each learner's sign-in ready before the start, so the start needs no call to the exam service.</p></form>`;
}

/** Fills the form's time-zone offset from the browser (the page runs it with its nonce). */
export const PREPARE_FORM_SCRIPT = "var t=document.getElementById('tz');if(t){t.value=String(new Date().getTimezoneOffset());document.getElementById('tz-name').textContent='(your time, '+Intl.DateTimeFormat().resolvedOptions().timeZone+')';}";

/** `startAt`: an ISO date-time with a zone, or a `datetime-local` value read in the browser's offset. */
export function startOf(body: Record<string, unknown>): string | undefined {
  const raw = typeof body.startAt === "string" ? body.startAt.trim() : "";
  if (/(?:Z|[+-]\d\d:\d\d)$/i.test(raw) && !Number.isNaN(Date.parse(raw))) return new Date(raw).toISOString();
  if (!/^\d{4}-\d\d-\d\dT\d\d:\d\d(?::\d\d)?$/.test(raw)) return undefined;
  const offset = Number(typeof body.tzOffsetMin === "string" ? body.tzOffsetMin : 0);
  if (!isWholeNumber(offset, -14 * 60, 14 * 60)) return undefined;
  const utc = Date.parse(`${raw}Z`);
  return Number.isNaN(utc) ? undefined : new Date(utc + offset * 60_000).toISOString();
}

export function prepareCourseRoutes(deps: PrepareCourseDeps) {
  const { logger, frameAncestors } = deps;
  const page = (res: Response, status: number, title: string, message: string) => sendLtiPage(res, frameAncestors, { status, title, message });
  const formOf = async (id: unknown): Promise<{ id: string; form: Form } | undefined> => {
    if (typeof id !== "string" || !ID.test(id)) return undefined;
    const text = await deps.forms.peek(formKey(id));
    return text === undefined ? undefined : { id, form: JSON.parse(text) as Form };
  };
  const expired = (res: Response) => page(res, 410, "This form has expired", "This form was used already, or has expired, or was opened in another browser. Open the exam's link from your course again to prepare it.");
  const beingPrepared = (res: Response) => page(res, 409, "This exam is being prepared", "The course roster is being read for this exam now (from another post of this form, or another instructor's). Wait a minute, then open the exam's link from your course again to see the progress.");

  const post = async (req: Request, res: Response): Promise<void> => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const found = await formOf(body.form);
    if (!found) return typeof body.form === "string" && ID.test(body.form) && (await deps.forms.peek(busyKey(body.form))) !== undefined ? beingPrepared(res) : expired(res);
    const { form } = found;
    await frameForLaunch(res, deps.source, form.course.issuer, form.course.clientId);
    // Bound to the instructor's browser like the launch: a copied form posted elsewhere reads nothing.
    const browserId = browserIdOf(req);
    if (form.browserHash !== undefined && (browserId === undefined || shortHash(browserId) !== form.browserHash)) {
      logger.warn({ event: "lti_refused", check: "prepare_browser", status: 410, examId: form.examId }, "LTI prepare form posted from another browser than the launch's");
      return expired(res);
    }
    const startAt = startOf(body);
    if (!startAt) return page(res, 400, "When does the exam start?", "The start time (field startAt) must be a date and time, e.g. 2026-12-01T09:00. Go back and enter it.");
    const preparer = await deps.preparerFor(req, form.org);
    if (!preparer) return page(res, 404, "No school for this course", "This tool does not know the school of this course any more. Open the link from your course again.");
    const lookup = await deps.source.find(form.course.issuer, form.course.clientId);
    if (!("found" in lookup)) return page(res, 404, "This LMS is not registered", "The tool's registration for this LMS is gone; ask the tool's administrator.");
    // One roster read in flight per exam and course, claimed atomically (fleet-wide): two
    // forms of one course posted at once read the roster once. The form is taken (once) for it.
    const readingMs = Math.min(deps.roster.formTtlMs, deps.roster.maxPages * deps.roster.requestTimeoutMs + 60_000);
    if (!(await deps.forms.claim(readingKey(form), "1", readingMs))) return beingPrepared(res);
    await deps.forms.put(busyKey(found.id), "1", readingMs);
    if ((await deps.forms.take(formKey(found.id))) === undefined) {
      await deps.forms.take(readingKey(form));
      return beingPrepared(res);
    }
    try {
      await prepareWith(req, res, found.id, form, startAt, preparer, lookup.found);
    } finally {
      await Promise.all([deps.forms.take(readingKey(form)), deps.forms.take(busyKey(found.id))]);
    }
  };

  /** The roster read and prepared; the form put back (usable again) unless the preparation started. */
  const prepareWith = async (req: Request, res: Response, formId: string, form: Form, startAt: string, preparer: CoursePreparer, registration: Registration): Promise<void> => {
    const again = () => deps.forms.put(formKey(formId), JSON.stringify(form), deps.roster.formTtlMs);
    let read;
    try {
      read = await readRoster(deps.access, registration, form.membershipsUrl, {
        maxPages: deps.roster.maxPages, pageSize: deps.roster.pageSize, rlid: form.rlid, maxLearners: preparer.maxRoster, maxBytes: deps.roster.maxBytes,
      });
    } catch (error) {
      await again();
      if (!(error instanceof ServiceAccessError)) throw error;
      logger.warn({ event: "lti_roster", outcome: error.kind, status: error.status, examId: form.examId, contextId: form.course.contextId }, error.message);
      const status = error.kind === "unreachable" ? 503 : 502;
      // The page says what to check, never what the LMS answered (a status would make the form a probe of the LMS): the log has it.
      return sendLtiPage(res, frameAncestors, {
        status, title: "The LMS's roster could not be read", message: "Nothing was prepared. Students can still open the exam; each is signed in when they do.",
        forAdministrator: `The tool's log has the LMS's answer (event lti_roster). Check that the tool's registration has the scope ${LTI_SCOPES.memberships} (Canvas: the developer key's LTI Advantage Services; Moodle: the tool's Services settings) and is deployed in this course, and that the LMS is reachable from the tool's server.`,
      });
    }
    const roster: StudentIdentity[] = [];
    const leftOut: LeftOut[] = [];
    const seen = new Set<string>();
    for (const member of read.learners) {
      const launch = memberLaunch(member, form.course);
      const who = { userId: member.user_id, name: member.name ?? [member.given_name, member.family_name].filter(Boolean).join(" ") };
      const mapped = await studentOfLaunch(deps.settings, launch, form.org, logger);
      if ("refusal" in mapped) {
        leftOut.push({ ...who, why: mapped.refusal.check === "email_missing" ? "no e-mail address from the LMS" : `missing ${(mapped.refusal.detail?.fields as string[] | undefined)?.join(", ") ?? "fields"} from the LMS` });
        continue;
      }
      // studentOfLaunch parsed it with the StudentIdentity schema.
      const student = mapped.student as StudentIdentity;
      const key = student.orgInternalId;
      if (seen.has(key)) continue;
      const ctx = { examId: form.examId, classId: form.classId, courseId: form.courseId, student, via: "lti" as const, claims: launch.forHooks };
      if (deps.canLaunch && !(await deps.canLaunch(req, ctx))) {
        leftOut.push({ ...who, why: "refused by the app's canLaunch" });
        continue;
      }
      seen.add(key);
      roster.push(student);
    }
    if (roster.length === 0) {
      await again();
      logger.info({ event: "lti_roster", outcome: "empty", examId: form.examId, learners: read.learners.length, leftOut: leftOut.length }, "no learner of the course could be prepared");
      return sendLtiPage(res, frameAncestors, { status: 200, title: "No learner could be prepared", message: `The LMS listed ${read.learners.length} active learners; none could be prepared.`, body: coursePreparedPage({ read, leftOut: leftOut.slice(0, LISTED), leftOutCount: leftOut.length }) });
    }
    const progress = await preparer.prepare(form.examId, { startAt, roster });
    if ("refused" in progress) {
      await again();
      logger.warn({ event: "lti_roster", outcome: "refused", examId: form.examId, prepared: roster.length }, progress.refused);
      return sendLtiPage(res, frameAncestors, { status: 400, title: "The exam could not be prepared", message: progress.refused, body: coursePreparedPage({ read, leftOut: leftOut.slice(0, LISTED), leftOutCount: leftOut.length }) });
    }
    // Used up: the plan started. Its progress has an id of its own, which reads and cannot post.
    const progressId = randomId(24);
    await deps.forms.put(progressKey(progressId), JSON.stringify({ org: form.org, examId: form.examId, examName: form.examName, issuer: form.course.issuer, clientId: form.course.clientId } satisfies ProgressRef), deps.roster.formTtlMs);
    const plan = capacityPlan({ students: roster.length, ratePerMinute: preparer.ratePerMinute, tokenLifeMs: preparer.tokenLifeMs, budgetShare: preparer.budgetShare });
    logger.info({ event: "lti_roster", outcome: "prepared", examId: form.examId, pages: read.pages, learners: read.learners.length, prepared: roster.length, leftOut: leftOut.length }, "LTI course roster prepared");
    sendLtiPage(res, frameAncestors, {
      status: 200, title: `${form.examName}: prepared for the course`,
      message: `${roster.length} of the course's ${read.learners.length} active learners will have their sign-in ready from ${humanTime(progress.issueFrom)} for the start on ${humanTime(progress.startAt)}.`,
      body: coursePreparedPage({ read, leftOut: leftOut.slice(0, LISTED), leftOutCount: leftOut.length, progress, plan, progressHref: `${toolBase(req, deps.settings.toolUrl)}/lti/prepare/${progressId}` }),
    });
  };

  const get = async (req: Request, res: Response): Promise<void> => {
    const id = req.params.form;
    const text = typeof id === "string" && ID.test(id) ? await deps.forms.peek(progressKey(id)) : undefined;
    if (text === undefined) return page(res, 410, "This page has expired", "Open the exam's link from your course again to see its preparation.");
    const ref = JSON.parse(text) as ProgressRef;
    if (ref.issuer !== undefined && ref.clientId !== undefined) await frameForLaunch(res, deps.source, ref.issuer, ref.clientId);
    const preparer = await deps.preparerFor(req, ref.org);
    const progress = await preparer?.progress(ref.examId);
    if (!progress) return page(res, 404, "Not prepared", "This exam has no preparation yet: use Prepare this exam for the course.");
    res.setHeader("Cache-Control", "no-store");
    sendLtiPage(res, frameAncestors, { status: 200, title: `${ref.examName}: preparation`, message: nextStep(progress), body: progressPage(progress) });
  };

  return { post, get };
}
