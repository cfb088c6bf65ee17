/**
 * The exam link of a learner's launch: short-lived, single-use, same-origin
 * (`GET /lti/open/:examId/:linkId`, `/lti/open/roleplay/:roleplayId/:linkId`). The LTI
 * launch stores the student, the exam and the organization under a random link id; the
 * link runs the router's own launch (`GET /launch/:examId`: prepared tokens, fair share,
 * waiting page, coalescing, fleet), handing it the stored student as an argument
 * (`OpenExam`) instead of `req.user`, so the sign-in token is asked for only when the
 * link is followed.
 *
 * Why a store and a link rather than launching inside `POST /lti/launch`: the exam is
 * opened by a later request of the browser (the student's click on *Open the exam*, in a
 * new window, since the exam page cannot run inside the LMS's frame), possibly on another
 * instance of a fleet. Only the verified launch knows the student, so it is kept in the
 * fleet's single-use store until that request, and each request of the link (its
 * waiting page's refreshes too) reads it back here and passes it on.
 *
 * Single use: the first follow takes the link. A launch that answers the waiting page
 * refreshes to the same path with `?wait=`: that is honoured (the launch checks the wait
 * id belongs to this student) while the followed link lives, and only in the browser
 * that followed it (its LTI cookie, browser-id.ts, whose hash the followed link records):
 * a copied `?wait=` URL opened anywhere else gets the "used" page, not the student's
 * sign-in. The plain link does not open a second time.
 *
 * A HEAD or a prefetch is answered as the router's launch answers one (core/speculative.ts:
 * 204 to a HEAD, 503 to a prefetch, `no-store`), spending nothing: the student's click
 * still finds the link.
 */
import type { NextFunction, Request, RequestHandler, Response } from "express";
import type { Logger } from "../../core/logger.js";
import { answerSpeculative, isSpeculative } from "../../core/speculative.js";
import type { SingleUseStore } from "../../fleet/single-use.js";
import { browserIdOf, shortHash, useBrowserId } from "../shared/browser-id.js";
import type { LtiStudentFields } from "../options/options.js";
import { sendLtiPage } from "../shared/pages.js";
import type { LaunchGradebook } from "./launch-gradebook.js";
import type { LinkKind } from "./typed-launch.js";


export interface LinkRecord {
  kind: LinkKind;
  examId: string;
  student: LtiStudentFields;
  /** What `organizationFor` answered (undefined: the router's own). */
  organization: string | undefined;
  /** The launch's verified claims kept for `canLaunch` (typed-launch.ts). */
  claims?: Record<string, unknown>;
  /** The LMS gradebook of the launch (AGS), when the LMS offers one (gradebook/launch-gradebook.ts). */
  gradebook?: LaunchGradebook;
}

/** Told when a followed link runs the launch (before it answers): the gradebook's `reached`. */
export type OnFollowed = (req: Request, res: Response, record: LinkRecord, linkId: string) => void;

/** What the router's launch is handed for a followed link: who the LMS launch said is launching. */
export interface LinkLaunch {
  student: LtiStudentFields;
  /** What `organizationFor` answered (undefined: the router's own). */
  organization: string | undefined;
  /** The launch's verified claims kept for `canLaunch` (typed-launch.ts). */
  claims?: Record<string, unknown> | undefined;
}

/**
 * The router's launch of one exam kind for a followed link, the link's launch passed as
 * an argument. Not an Express handler (Express takes a four-parameter function for an
 * error handler): the link's route calls it.
 */
export type OpenExam = (req: Request, res: Response, next: NextFunction, launch: LinkLaunch) => void;

/** Lives until followed. */
const LINK_TTL_MS = 5 * 60_000;
const linkKey = (id: string) => `lti-link:${id}`;
const followedKey = (id: string) => `lti-followed:${id}`;

export function linkPath(baseUrl: string, kind: LinkKind, examId: string, linkId: string): string {
  return `${baseUrl}/lti/open/${kind === "roleplay" ? "roleplay/" : ""}${encodeURIComponent(examId)}/${linkId}`;
}

export async function putLink(store: SingleUseStore, id: string, record: LinkRecord): Promise<void> {
  await store.put(linkKey(id), JSON.stringify(record), LINK_TTL_MS);
}

/** A followed link: its record, and the hash of the browser that followed it. */
interface Followed extends LinkRecord {
  browserHash: string;
}

export interface OpenLinkTimes {
  /** How long a followed link's waiting page may refresh, ms. */
  followedTtlMs: number;
  /** The browser cookie's life, ms (browser-id.ts). */
  cookieMaxAgeMs: number;
}

/**
 * Whether the router's organization step (run before this route) found another
 * organization than the one the link was made for: checked before the link is taken.
 */
function forAnotherOrganization(res: Response, text: string | undefined): boolean {
  const current = (res.locals.oralAssessmentsOrganization as { id?: unknown } | undefined)?.id;
  const wanted = text === undefined ? undefined : (JSON.parse(text) as LinkRecord).organization;
  return typeof current === "string" && wanted !== undefined && wanted !== current;
}

/** `openExam`: the router's launch for that kind. */
export function openLinkRoute(kind: LinkKind, store: SingleUseStore, openExam: OpenExam, times: OpenLinkTimes, logger: Logger, frameAncestors: readonly string[], onFollowed?: OnFollowed): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    void (async () => {
      if (isSpeculative(req)) {
        const answer = answerSpeculative(req, res);
        logger.debug({ event: "lti_link", outcome: answer.outcome, status: answer.status, method: req.method }, "an LTI exam link was prefetched or checked: nothing spent");
        return;
      }
      const linkId = String(req.params.linkId ?? "");
      const examId = String(req.params.examId ?? req.params.roleplayId ?? "");
      const resuming = req.query.wait !== undefined;
      let record: Followed | undefined;
      let why = "used, expired or altered";
      if (resuming) {
        const text = await store.peek(followedKey(linkId));
        const followed = text === undefined ? undefined : (JSON.parse(text) as Followed);
        const browserId = browserIdOf(req);
        if (followed && (browserId === undefined || shortHash(browserId) !== followed.browserHash)) why = "resumed in another browser";
        else record = followed;
      } else {
        const peeked = await store.peek(linkKey(linkId));
        if (forAnotherOrganization(res, peeked)) {
          // Followed under another school: the launch answers its 404, and the link stays for the right one.
          record = peeked === undefined ? undefined : { ...(JSON.parse(peeked) as LinkRecord), browserHash: "" };
        } else {
          const text = await store.take(linkKey(linkId));
          if (text !== undefined) {
            const browserId = useBrowserId(req, res, times.cookieMaxAgeMs);
            record = { ...(JSON.parse(text) as LinkRecord), browserHash: shortHash(browserId) };
            await store.put(followedKey(linkId), JSON.stringify(record), times.followedTtlMs);
          }
        }
      }
      if (!record || record.kind !== kind || record.examId !== examId) {
        logger.info({ event: "lti_link_refused", resuming, why }, `an LTI exam link was ${why}`);
        res.setHeader("X-Robots-Tag", "noindex");
        return sendLtiPage(res, frameAncestors, {
          status: 410, title: "This exam link has been used",
          message: "Exam links from your LMS work once, for a few minutes, in the browser that first opened them. Go back to your course in the LMS and open the exam again.",
        });
      }
      onFollowed?.(req, res, record, linkId);
      openExam(req, res, next, { student: record.student, organization: record.organization, claims: record.claims });
    })().catch(next);
  };
}
