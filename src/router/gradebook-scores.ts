/**
 * `POST /oral-assessments/:examId/scores` (instructor only: the instructor guards run
 * before it, as for every instructor route) and `router.lti.postScore(...)`: grades into
 * the LMS gradebook through the outbox (src/lti/gradebook/). Bad input is a 400 naming
 * the field, and nothing is queued.
 */
import type { Request, Response } from "express";
import { routeOf } from "../api/routes.js";
import { ScoresRequest } from "../api/scores-request.js";
import { GradeRefusal, type Gradebook } from "../lti/gradebook/gradebook.js";
import { DEFAULT_ORGANIZATION, isOrganizationId } from "../store/types.js";
import type { PostScoreInput } from "./post-score-input.js";
import { param, parseOr400 } from "./shared/instructor-http.js";
import { sendJson } from "./shared/json-answer.js";
import { invalidInput, sendProblem } from "./shared/problem.js";
import { routeTable } from "./shared/route-table.js";
import { foundOrganization } from "./organization/middleware.js";

export function scoresRoute(gradebook: () => Gradebook | undefined) {
  return routeTable([routeOf("postExamScores")], {
    postExamScores: async (req: Request, res: Response) => {
      const examId = param(req, res, "examId");
      if (examId === undefined) return;
      const book = gradebook();
      if (!book) return sendProblem(res, { status: 404, code: "no_gradebook", title: "Not found", detail: "This router posts no scores: it has no LMS gradebook (lti is off, or lti.gradebook is false)." });
      const body = parseOr400(res, ScoresRequest, req.body);
      if (!body) return;
      try {
        const queued = await book.queueGrades(foundOrganization(res).id, "oral", examId, body.scores);
        sendJson(res, 202, { data: queued });
      } catch (error) {
        if (!(error instanceof GradeRefusal)) throw error;
        sendProblem(res, invalidInput([{ path: error.field, message: error.message }]));
      }
    },
  });
}

/** `router.lti.postScore({ examId, scores: [{ student, scoreGiven, comment }] })`: the same, for the app's own code. Throws a TypeError naming the field on bad input. */
export function programmaticScores(gradebook: () => Gradebook | undefined) {
  return async (input: PostScoreInput) => {
    const book = gradebook();
    if (!book) throw new TypeError("postScore: this router has no LMS gradebook (lti is off, or lti.gradebook is false)");
    const org = input.organization ?? DEFAULT_ORGANIZATION;
    if (!isOrganizationId(org) || typeof input.examId !== "string" || input.examId === "") throw new TypeError("postScore: examId (and organization, when given) must be ids");
    const parsed = ScoresRequest.safeParse({ scores: input.scores });
    if (!parsed.success) throw new TypeError(`postScore: ${parsed.error.issues.map((i) => `${i.path.join(".")} ${i.message}`).join("; ")}`);
    try {
      return await book.queueGrades(org, input.kind ?? "oral", input.examId, parsed.data.scores);
    } catch (error) {
      if (error instanceof GradeRefusal) throw new TypeError(`postScore: ${error.field} ${error.message}`);
      throw error;
    }
  };
}
