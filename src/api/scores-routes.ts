/**
 * The route table's entries for `POST …/scores` (an exam's and a role-play's): one shape,
 * the kind of exam told by the path (routes.ts lists them with the others).
 */
import type { RouteSpec } from "./route-spec.js";

/** What the scores routes do. */
const SCORES =
  "The contract's single score `{ studentId, scoreGiven, scoreMaximum, comment }` (`studentId`: the launch record's " +
  "`student.orgInternalId`), or a batch `{ scores: [ … ] }` whose items take the same fields (`student`, an `orgInternalId` " +
  "or e-mail, as an alias of `studentId`); a 400 names the field in the form sent. " +
  "Queues one score per learner and LMS course they launched it from, in the durable outbox (the store): " +
  "posted to the LMS's line item with backoff until it takes it, across restarts and LMS outages. " +
  "`submission.submittedAt` is the learner's return (else launch) time, so a late grading is not a late submission; " +
  "a comment is always sent (the last one when none is given). All or nothing: an unknown student refuses the call. " +
  "The launch record shows each learner's `gradebook` entries and whether they were sent.";

/** `POST …/scores` of an exam or a role-play. */
export function scoresSpec<const Id extends string>(operationId: Id, path: string, param: "examId" | "roleplayId", tag: string, what: string) {
  return {
    operationId, method: "post", path, feature: "gradebook", tag, params: [param] as RouteSpec["params"], body: "ScoresRequest", status: 202, notFound: true,
    summary: `Post grades to the LMS gradebook (LTI AGS) for learners who opened the ${what} from an LMS`, description: SCORES,
    returns: { kind: "list", schema: "ScoresQueued", description: "Per student, how many scores were queued (one per LMS course they launched from)." },
    descriptions: { 404: "The router has no LMS gradebook (`lti` is off, or `lti.gradebook: false`)." },
  } as const satisfies RouteSpec;
}

