/**
 * *Prepare this exam for the course*: from the instructor's page in the LMS (an
 * instructor's launch of a placed oral exam), the course roster read through NRPS
 * (roster.ts) goes into the router's existing `prepare` (src/router/prepare/: the same
 * plan, progress and fleet lease as `POST <mount>/oral-assessments/:examId/prepare`).
 *
 * - The form is bound to the verified launch by a random id kept in the fleet's
 *   single-use store (`lti.roster.formTtlMs`) with what the post needs: never a token.
 * - `POST <mount>/lti/prepare` (fields `form`, `startAt`, `tzOffsetMin`): reads the
 *   roster, maps each active learner as a launch would (`lti.student`, `lti.email`,
 *   `lti.emailStandIn`), asks `canLaunch` with the member as an LTI launch would carry
 *   it (`via: "lti"`, the member's claims; the request is the instructor's post), and
 *   prepares those who pass. The page lists who was left out and why, and the capacity plan.
 * - `GET <mount>/lti/prepare/:form`: the plan's progress while the form lives.
 */
import type { Request, Response } from "express";
import type { Logger } from "../core/logger.js";
import { randomId } from "../core/random-id.js";
import { isWholeNumber } from "../core/whole-number.js";
import type { SingleUseStore } from "../fleet/single-use.js";
import type { LtiCourseKey } from "../store/lti-course-types.js";
import { capacityPlan } from "./capacity-plan.js";
import { coursePreparedPage, nextStep, progressPage, type LeftOut, type ProgressView } from "./prepare-course-page.js";
import { humanTime } from "../core/human-time.js";
import { escapeHtml } from "../core/html.js";
import { sendLtiPage } from "./pages.js";
import type { RegistrationSource } from "./registration-source.js";
import { readRoster } from "./roster.js";
import type { LtiRosterSettings } from "./roster-options.js";
import { LTI_SCOPES, ServiceAccessError, type ServiceAccess } from "./service-access.js";
import type { LtiSettings } from "./settings.js";
import { studentOfLaunch } from "./launch-student.js";
import { toolBase } from "./tool-url.js";
import { memberLaunch } from "./typed-launch.js";
import type { StudentIdentity } from "../platform/schemas.js";

/** What the LTI side needs of the organization's preparation (the router's, see lti-mount.ts). */
export interface CoursePreparer {
  /** Starts (or replaces) the plan; `refused`: why the router's prepare refused it (e.g. `prepare.maxRoster`). */
  prepare(examId: string, input: { startAt: string; roster: StudentIdentity[] }): Promise<ProgressView | { refused: string }>;
  progress(examId: string): Promise<ProgressView | undefined>;
  /** The key's sign-in requests per minute, the token's life and the share preparing uses: the capacity plan's inputs. */
  ratePerMinute: number;
  tokenLifeMs: number;
  budgetShare: number;
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
}

const formKey = (id: string) => `lti-prepare:${id}`;
const ID = /^[A-Za-z0-9_-]{1,128}$/;
/** Members named on the page at most (the rest are counted). */
const LISTED = 200;

/** The instructor page's form (HTML), kept for `formTtlMs`. */
export async function prepareCourseForm(req: Request, form: Form, deps: Pick<PrepareCourseDeps, "forms" | "roster" | "settings">): Promise<string> {
  const id = randomId(24);
  await deps.forms.put(formKey(id), JSON.stringify(form), deps.roster.formTtlMs);
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
  const expired = (res: Response) => page(res, 410, "This form has expired", "Open the exam's link from your course again to prepare it.");

  const post = async (req: Request, res: Response): Promise<void> => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const found = await formOf(body.form);
    if (!found) return expired(res);
    const { form } = found;
    const startAt = startOf(body);
    if (!startAt) return page(res, 400, "When does the exam start?", "The start time (field startAt) must be a date and time, e.g. 2026-12-01T09:00. Go back and enter it.");
    const preparer = await deps.preparerFor(req, form.org);
    if (!preparer) return page(res, 404, "No school for this course", "This tool does not know the school of this course any more. Open the link from your course again.");
    const lookup = await deps.source.find(form.course.issuer, form.course.clientId);
    if (!("found" in lookup)) return page(res, 404, "This LMS is not registered", "The tool's registration for this LMS is gone; ask the tool's administrator.");
    let read;
    try {
      read = await readRoster(deps.access, lookup.found, form.membershipsUrl, { maxPages: deps.roster.maxPages, pageSize: deps.roster.pageSize, rlid: form.rlid });
    } catch (error) {
      if (!(error instanceof ServiceAccessError)) throw error;
      logger.warn({ event: "lti_roster", outcome: error.kind, status: error.status, examId: form.examId, contextId: form.course.contextId }, error.message);
      const status = error.kind === "unreachable" ? 503 : 502;
      // The page says what to check, never what the LMS answered (a status would make the form a probe of the LMS): the log has it.
      return sendLtiPage(res, frameAncestors, {
        status, title: "The LMS's roster could not be read", message: "Nothing was prepared. Students can still open the exam; each is signed in when they do.",
        forAdministrator: `The tool's log has the LMS's answer (event lti_roster). Check that the tool's registration has the scope ${LTI_SCOPES.memberships} and is deployed in this course, and that the LMS is reachable from the tool's server.`,
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
      logger.info({ event: "lti_roster", outcome: "empty", examId: form.examId, learners: read.learners.length, leftOut: leftOut.length }, "no learner of the course could be prepared");
      return sendLtiPage(res, frameAncestors, { status: 200, title: "No learner could be prepared", message: `The LMS listed ${read.learners.length} active learners; none could be prepared.`, body: coursePreparedPage({ read, leftOut: leftOut.slice(0, LISTED), leftOutCount: leftOut.length }) });
    }
    const progress = await preparer.prepare(form.examId, { startAt, roster });
    if ("refused" in progress) {
      logger.warn({ event: "lti_roster", outcome: "refused", examId: form.examId, prepared: roster.length }, progress.refused);
      return sendLtiPage(res, frameAncestors, { status: 400, title: "The exam could not be prepared", message: progress.refused, body: coursePreparedPage({ read, leftOut: leftOut.slice(0, LISTED), leftOutCount: leftOut.length }) });
    }
    const plan = capacityPlan({ students: roster.length, ratePerMinute: preparer.ratePerMinute, tokenLifeMs: preparer.tokenLifeMs, budgetShare: preparer.budgetShare });
    logger.info({ event: "lti_roster", outcome: "prepared", examId: form.examId, pages: read.pages, learners: read.learners.length, prepared: roster.length, leftOut: leftOut.length }, "LTI course roster prepared");
    sendLtiPage(res, frameAncestors, {
      status: 200, title: `${form.examName}: prepared for the course`,
      message: `${roster.length} of the course's ${read.learners.length} active learners will have their sign-in ready from ${humanTime(progress.issueFrom)} for the start on ${humanTime(progress.startAt)}.`,
      body: coursePreparedPage({ read, leftOut: leftOut.slice(0, LISTED), leftOutCount: leftOut.length, progress, plan, progressHref: `${toolBase(req, deps.settings.toolUrl)}/lti/prepare/${found.id}` }),
    });
  };

  const get = async (req: Request, res: Response): Promise<void> => {
    const found = await formOf(req.params.form);
    if (!found) return expired(res);
    const preparer = await deps.preparerFor(req, found.form.org);
    const progress = await preparer?.progress(found.form.examId);
    if (!progress) return page(res, 404, "Not prepared", "This exam has no preparation yet: use Prepare this exam for the course.");
    res.setHeader("Cache-Control", "no-store");
    sendLtiPage(res, frameAncestors, { status: 200, title: `${found.form.examName}: preparation`, message: nextStep(progress), body: progressPage(progress) });
  };

  return { post, get };
}
