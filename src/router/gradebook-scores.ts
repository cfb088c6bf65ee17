/**
 * `POST /oral-assessments/:examId/scores` and `POST /roleplays/:roleplayId/scores`
 * (instructor only: the instructor guards run before them, as for every instructor route)
 * and `router.lti.postScore(...)`: grades into the LMS gradebook through the outbox
 * (src/lti/gradebook/). The body is the contract's single score or a batch
 * (api/scores-request.ts); bad input is a 400 naming the field in the form sent, and
 * nothing is queued. An `Idempotency-Key` makes a retry answer the first call's 202
 * instead of queueing the grades twice, as on every other POST.
 */
import type { Request, RequestHandler, Response } from "express";
import { routeOf } from "../api/routes.js";
import { gradesOf, ScoresBatchRequest, scoresSchemaOf } from "../api/scores-request.js";
import { GradeRefusal, type Gradebook } from "../lti/gradebook/gradebook.js";
import { DEFAULT_ORGANIZATION, isOrganizationId, type ExamKind } from "../store/types.js";
import type { PostScoreInput } from "./post-score-input.js";
import { param, parseOr400 } from "./shared/instructor-http.js";
import { sendJson } from "./shared/json-answer.js";
import { invalidInput, sendProblem } from "./shared/problem.js";
import { routeTable, type TableHandler } from "./shared/route-table.js";
import { foundOrganization } from "./organization/middleware.js";

/** `idempotent`: the instructor API's `Idempotency-Key` middleware (instructor/idempotency.ts). */
export function scoresRoute(gradebook: () => Gradebook | undefined, idempotent: RequestHandler) {
  const post = (kind: ExamKind, idParam: string): TableHandler => async (req: Request, res: Response) => {
    const examId = param(req, res, idParam);
    if (examId === undefined) return;
    const book = gradebook();
    if (!book) return sendProblem(res, { status: 404, code: "no_gradebook", title: "Not found", detail: "This router posts no scores: it has no LMS gradebook (lti is off, or lti.gradebook is false)." });
    const body = parseOr400(res, scoresSchemaOf(req.body), req.body);
    if (!body) return;
    const grades = gradesOf(body).map(({ grade, field }) => ({ ...grade, field }));
    try {
      const queued = await book.queueGrades(foundOrganization(res).id, kind, examId, grades);
      sendJson(res, 202, { data: queued });
    } catch (error) {
      if (!(error instanceof GradeRefusal)) throw error;
      sendProblem(res, invalidInput([{ path: error.field, message: error.message }]));
    }
  };
  /** The key is checked (and a replay answered) before the handler; the handler runs only for a new key or none. */
  const once = (handler: TableHandler): TableHandler => (req, res) => new Promise<void>((resolve, reject) => {
    res.once("close", () => resolve());
    idempotent(req, res, (error?: unknown) => {
      if (error) reject(error instanceof Error ? error : new Error(String(error)));
      else handler(req, res).then(resolve, reject);
    });
  });
  return routeTable([routeOf("postExamScores"), routeOf("postRoleplayScores")], {
    postExamScores: once(post("oral", "examId")),
    postRoleplayScores: once(post("roleplay", "roleplayId")),
  });
}

/** `router.lti.postScore({ examId, scores: [{ student, scoreGiven, comment }] })`: the same, for the app's own code. Throws a TypeError naming the field on bad input. */
export function programmaticScores(gradebook: () => Gradebook | undefined) {
  return async (input: PostScoreInput) => {
    const book = gradebook();
    if (!book) throw new TypeError("postScore: this router has no LMS gradebook (lti is off, or lti.gradebook is false)");
    const org = input.organization ?? DEFAULT_ORGANIZATION;
    if (!isOrganizationId(org) || typeof input.examId !== "string" || input.examId === "") throw new TypeError("postScore: examId (and organization, when given) must be ids");
    const parsed = ScoresBatchRequest.safeParse({ scores: input.scores });
    if (!parsed.success) throw new TypeError(`postScore: ${parsed.error.issues.map((i) => `${i.path.join(".")} ${i.message}`).join("; ")}`);
    try {
      return await book.queueGrades(org, input.kind ?? "oral", input.examId, gradesOf(parsed.data).map(({ grade, field }) => ({ ...grade, field })));
    } catch (error) {
      if (error instanceof GradeRefusal) throw new TypeError(`postScore: ${error.field} ${error.message}`);
      throw error;
    }
  };
}
