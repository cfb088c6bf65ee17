/**
 * Preparing an exam: input checks, the exam's class, the roster, then the pre-warmer.
 * One implementation behind both `POST /oral-assessments/:examId/prepare` and the
 * programmatic `router.prepare(examId, { startAt, roster })`.
 */
import type { Request } from "express";
import { z } from "zod";
import { issuesOf } from "../../platform/schemas.js";
import { prepareRequestSchema, RosterStudent } from "../../api/prepare-request.js";
import type { StudentIdentity } from "../../platform/schemas.js";
import type { OrganizationInfo } from "../shared/organization-info.js";
import { EXAM_ID_PATTERN, type ExamDirectory } from "../shared/exam-directory.js";
import type { PlanCoordinator } from "./coordinator.js";
import type { PrepareProgress } from "./plan.js";
import type { TokenPreparer } from "./preparer.js";
import type { PrepareSettings } from "./settings.js";

/** How far ahead an exam may be prepared: plans live in memory, so not for long. */
const MAX_AHEAD_MS = 7 * 24 * 60 * 60_000;

/** Why a preparation was refused. `status` and `code` are what the route answers. */
export class PrepareError extends Error {
  override readonly name = "PrepareError";
  constructor(
    readonly status: 400 | 404,
    readonly code: string,
    message: string,
    readonly errors: { path: string; message: string }[] = [],
  ) {
    super(message);
  }
}

export interface PrepareInput {
  /** When the exam starts: a Date or an ISO 8601 date-time with a zone. */
  startAt: Date | string;
  /** The students to prepare. Default: the router's `roster` option. */
  roster?: StudentIdentity[];
  /**
   * Whose exam it is, for `router.prepare` on a router with the `organization` resolver
   * (required there, refused on a single-organization router): what the resolver would
   * answer for that organization, `{ id, apiKey, baseUrl, examHost }`. Default: none.
   */
  organization?: OrganizationInfo;
}

export interface Preparation {
  /** Validates and starts (or replaces) the plan of `org`'s exam. Throws `PrepareError`. */
  prepare(org: string, examId: string, input: unknown, req?: Request): Promise<PrepareProgress>;
  /** This instance's view of the plan (in process: the plan itself). */
  progress(examId: string): PrepareProgress | undefined;
  /** The plan's progress as the fleet sees it: the leader's, on any instance (in process: `progress`). */
  sharedProgress(examId: string): Promise<PrepareProgress | undefined>;
}

function invalid(errors: { path: string; message: string }[]): PrepareError {
  return new PrepareError(400, "validation_error", errors.map((e) => `${e.path}: ${e.message}`).join("; "), errors);
}

export function createPreparation(settings: PrepareSettings, directory: ExamDirectory, preparer: TokenPreparer, coordinator?: PlanCoordinator): Preparation {
  const { maxRoster, keepAfterStartMs } = settings;
  const schema = prepareRequestSchema(maxRoster);
  const rosterSchema = z.array(RosterStudent).min(1, "must list at least one student").max(maxRoster, `must list at most ${maxRoster} students`);

  return {
    async prepare(org, examId, input, req) {
      if (typeof examId !== "string" || !EXAM_ID_PATTERN.test(examId)) {
        throw invalid([{ path: "examId", message: "must be a platform record id (letters, digits, _ and -)" }]);
      }
      const body = input !== null && typeof input === "object" && (input as { startAt?: unknown }).startAt instanceof Date
        ? { ...input, startAt: ((input as { startAt: Date }).startAt).toISOString() }
        : input;
      const parsed = schema.safeParse(body);
      if (!parsed.success) throw invalid(issuesOf(parsed.error));

      const startAt = Date.parse(parsed.data.startAt);
      const now = Date.now();
      if (startAt + keepAfterStartMs <= now) {
        throw invalid([{ path: "startAt", message: `is over: tokens are kept only until ${keepAfterStartMs} ms after the start (prepare.keepAfterStartMs)` }]);
      }
      if (startAt - now > MAX_AHEAD_MS) throw invalid([{ path: "startAt", message: "must be within 7 days: preparations live in memory" }]);

      const exam = await directory.classOf(org, examId, { req });
      if (!exam) throw new PrepareError(404, "not_found", `No exam ${examId} is known to this router.`);

      let roster: StudentIdentity[] | undefined = parsed.data.roster;
      if (roster === undefined && settings.roster) {
        const listed = rosterSchema.safeParse(await settings.roster(exam.classId, examId));
        if (!listed.success) throw invalid(issuesOf(listed.error).map((e) => ({ ...e, path: e.path === "(body)" ? "roster" : `roster.${e.path}` })));
        roster = listed.data;
      }
      if (roster === undefined) {
        throw invalid([{ path: "roster", message: "is required: send the students, or configure the router's roster option" }]);
      }
      const plan = { examId, classId: exam.classId, courseId: exam.courseId, startAt, roster };
      const progress = preparer.prepare(plan);
      // Fleet mode: publish the plan so that exactly one instance (maybe another) runs it.
      if (coordinator) await coordinator.announce(plan, progress);
      return progress;
    },
    progress: (examId) => preparer.progress(examId),
    sharedProgress: async (examId) => (coordinator ? coordinator.progress(examId) : preparer.progress(examId)),
  };
}
