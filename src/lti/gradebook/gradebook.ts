/**
 * The LMS gradebook (LTI AGS), as the LTI routes use it:
 *
 * - `reached`: a learner's exam link reached the exam (the router's launch answered its
 *   redirect): queues `Started` / `NotReady` (once per link) and leaves the return mark.
 *   Never on the launch's critical path: the entry is written after the answer went out,
 *   and a store failure is logged, not shown to the learner.
 * - `returnRoute`: `GET /lti/return`, where the organization sends learners back from the
 *   exam site: queues `Submitted` / `PendingManual` for the marked learner and shows a
 *   small page. A hint that they finished, not proof: anyone can open the URL, and only
 *   the browser's own mark says who. One `Submitted` per mark (a replay queues nothing),
 *   limited per client address (past the limit, the 429 is held until the next token is due:
 *   held-answers.ts), and nothing changes on a cross-site subrequest (return-guard.ts).
 * - `queueGrades`: the app's grades (`POST /oral-assessments/:examId/scores`, `router.lti.postScore`).
 *
 * Scores go through the durable outbox in the store (outbox.ts); the worker starts with
 * the routes and stops with `close()`.
 */
import type { Request, RequestHandler, Response } from "express";
import type { Logger } from "../../core/logger.js";
import type { CircuitBreakerStore } from "../../fleet/circuit-breaker.js";
import type { Fleet } from "../../fleet/fleet.js";
import type { SingleUseStore } from "../../fleet/single-use.js";
import { addressKey } from "../options/login-limit.js";
import type { OralStoreLtiGradebook, LtiScoreEntry } from "../../store/lti-gradebook-types.js";
import type { ExamKind } from "../../store/types.js";
import { sendLtiPage } from "../shared/pages.js";
import type { RegistrationSource } from "../lms/registration-source.js";
import type { ServiceAccess } from "../lms/service-access.js";
import type { ToolKeys } from "../lms/tool-keys.js";
import { agsSender, type AgsDeps } from "./ags.js";
import { gradeEntry, startedEntry, submittedEntry, type GradeInput, type Learner } from "./entries.js";
import type { LaunchGradebook } from "../launch/launch-gradebook.js";
import type { GradebookSettings } from "../options/gradebook-options.js";
import { LmsGate } from "./lms-gate.js";
import { ScoreOutbox } from "./outbox.js";
import { HeldAnswers } from "./held-answers.js";
import { returnRefusal } from "./return-guard.js";
import { RecentMarks, returnMarks } from "./return-mark.js";
import { withoutStatusAfterGrade } from "./grade-safe.js";
import { DEFAULT_ORGANIZATION } from "../../store/types.js";

export interface GradebookDeps {
  settings: GradebookSettings;
  store: OralStoreLtiGradebook;
  access: ServiceAccess;
  source: RegistrationSource;
  keys: ToolKeys;
  logger: Logger;
  /** The tool's launch URL for the line items' Submission Review, when known without a request (`lti.toolUrl`). */
  reviewUrl?: string;
  /** The fleet's token buckets: `GET /lti/return`'s limit per address. */
  limiter: Fleet["limiter"];
  /** Where an LMS's pause (`Retry-After`) is kept, seen by every instance. */
  pauses: SingleUseStore;
  /** The fleet's circuit breakers: one per LMS. */
  breaker: CircuitBreakerStore;
  /** `lti.allowLoopbackHttp`. */
  loopbackHttp: boolean;
  /** The fleet's lease to make a missing line item (one instance makes it). */
  lease?: AgsDeps["lease"];
}

/** What the exam link knows when it is followed. */
export interface ReachedLink {
  linkId: string;
  kind: ExamKind;
  examId: string;
  organization: string | undefined;
  student: { orgInternalId?: string; email?: string };
  gradebook: LaunchGradebook;
}

/** Why grades could not be queued: the field to name in a 400. */
export class GradeRefusal extends Error {
  constructor(readonly field: string, message: string) {
    super(message);
  }
}

export interface GradeRequest extends GradeInput {
  /** The student: their `orgInternalId` or e-mail, as the launch record shows them. */
  student: string;
  /** The request's field naming the student, for a refusal (default `scores[i].student`). */
  field?: string;
}

export type Gradebook = ReturnType<typeof createGradebook>;

const HANDED_IN = "Your exam is handed in. Your course shows it as submitted, awaiting grading. You can close this window and go back to your course.";

export function createGradebook(deps: GradebookDeps) {
  const { settings, store, logger } = deps;
  const marks = returnMarks(deps.keys, settings.returnMarkMaxAgeMs);
  const recent = new RecentMarks();
  const send = agsSender({
    store, access: deps.access, settings, logger, reviewUrl: deps.reviewUrl, loopbackHttp: deps.loopbackHttp, ...(deps.lease ? { lease: deps.lease } : {}),
    registration: async (issuer, clientId) => {
      const found = await deps.source.find(issuer, clientId);
      return "found" in found ? found.found : undefined;
    },
  });
  const gate = new LmsGate({ perLms: settings.perLmsConcurrency, pauses: deps.pauses, breaker: deps.breaker, logger });
  const outbox = new ScoreOutbox(store, send, settings, logger, gate);
  const returns = deps.limiter("lti-return-address", { ...settings.returnLimit, failureBackoffMs: 0, maxFailureBackoffMs: 0 });
  const held = new HeldAnswers();
  const orgOf = (organization: string | undefined) => organization ?? DEFAULT_ORGANIZATION;

  /** Queues a launch's or return's status score, unless the learner already has a grade (grade-safe.ts). */
  const queue = (org: string, entries: LtiScoreEntry[], why: string): void => {
    void withoutStatusAfterGrade(store, org, entries).then((kept) => store.addLtiScores(org, kept)).then(() => { outbox.start(); outbox.kick(); }, (error: unknown) => {
      logger.error({ event: "lti_score_not_queued", why, error: (error as Error)?.message }, "a score could not be queued for the LMS gradebook (the store failed)");
    });
  };

  return {
    outbox,
    start: () => outbox.start(),
    close: () => {
      held.close();
      return outbox.close();
    },

    /**
     * Call before the launch answers: only an answer that redirects to the exam gets the
     * mark (added as its headers go out, as on-headers does: a refused launch leaves none),
     * and the score is queued once that answer is sent.
     */
    reached(req: Request, res: Response, link: ReachedLink): void {
      const learner: Learner = { kind: link.kind, examId: link.examId, student: link.student, launch: link.gradebook };
      const writeHead = res.writeHead;
      res.writeHead = function (this: Response, ...args: unknown[]) {
        const status = typeof args[0] === "number" ? args[0] : this.statusCode;
        if (status === 303 || status === 302) marks.set(req, this, { ...learner, organization: link.organization });
        return (writeHead as (...a: unknown[]) => Response).apply(this, args);
      } as Response["writeHead"];
      res.once("finish", () => {
        if (res.statusCode === 303 || res.statusCode === 302) queue(orgOf(link.organization), [startedEntry(learner, link.linkId)], "started");
      });
    },

    returnRoute: ((frameAncestors: readonly string[]): RequestHandler => (req, res, next) => {
      res.setHeader("Cache-Control", "no-store");
      const thanks = () => sendLtiPage(res, frameAncestors, { status: 200, title: "Thank you", message: "You can close this window and go back to your course." });
      const refusal = returnRefusal(req);
      if (refusal) {
        logger.info({ event: "lti_return", outcome: refusal }, "a return that is not the learner's own navigation: nothing told to the LMS");
        return thanks();
      }
      const address = addressKey(req.ip ?? "");
      void returns.check("address", address).then(async (limit) => {
        if (!limit.allowed) {
          logger.info({ event: "lti_return", outcome: "limited" }, "too many returns from one address: nothing told to the LMS");
          // Sent when the address's next token is due (held-answers.ts): a script that waits for it is paced.
          return held.hold(address, limit.retryAfterMs, res, () => {
            res.setHeader("Retry-After", String(Math.max(1, Math.ceil(limit.retryAfterMs / 1000))));
            sendLtiPage(res, frameAncestors, { status: 429, title: "Too many requests", message: "Please wait a moment, then go back to your course." });
          });
        }
        await returns.record("address", address);
        if (recent.has(req)) {
          // A replay of a mark this process took a return for: its Submitted is queued already.
          marks.clear(req, res);
          return sendLtiPage(res, frameAncestors, { status: 200, title: "Thank you", message: HANDED_IN });
        }
        const mark = marks.read(req);
        if (!mark) {
          logger.info({ event: "lti_return", outcome: "unmarked" }, "a return without a launch's mark: nothing told to the LMS");
          return thanks();
        }
        marks.clear(req, res);
        recent.remember(mark);
        queue(orgOf(mark.organization), [submittedEntry(mark, mark.id)], "returned");
        logger.info({ event: "lti_return", outcome: "submitted", examId: mark.examId, kind: mark.kind }, "a learner came back from the exam: Submitted queued for the LMS gradebook (once per mark)");
        sendLtiPage(res, frameAncestors, { status: 200, title: "Thank you", message: HANDED_IN });
      }).catch(next);
    }),

    /**
     * Queues grades for learners who launched this exam from an LMS, all or none: a
     * student with no LTI launch of the exam refuses the whole call (naming
     * `scores[i].student`). A learner who launched from two courses gets the grade in both.
     */
    async queueGrades(org: string, kind: ExamKind, examId: string, grades: readonly GradeRequest[]): Promise<{ student: string; queued: number }[]> {
      const entries: LtiScoreEntry[] = [];
      const answers: { student: string; queued: number }[] = [];
      for (const [i, grade] of grades.entries()) {
        const previous = await store.listLtiScores(org, { kind, examId, student: grade.student, limit: 200 });
        if (previous.length === 0) throw new GradeRefusal(grade.field ?? `scores[${i}].student`, `has no LMS launch of this exam: only learners who opened it from an LMS link have a place in the LMS gradebook.`);
        const byLink = new Map<string, typeof previous>();
        for (const r of previous) {
          const k = JSON.stringify([r.key.issuer, r.key.clientId, r.key.deploymentId, r.key.contextId, r.userId]);
          byLink.set(k, [...(byLink.get(k) ?? []), r]);
        }
        for (const group of byLink.values()) entries.push(gradeEntry(group, grade, settings.scoreMaximum));
        answers.push({ student: grade.student, queued: byLink.size });
      }
      await store.addLtiScores(org, entries);
      outbox.start();
      outbox.kick();
      return answers;
    },
  };
}
