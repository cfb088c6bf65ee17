/**
 * The exam link of a learner's launch: short-lived, single-use, same-origin
 * (`GET /lti/open/:examId/:linkId`, `/lti/open/roleplay/:roleplayId/:linkId`). The LTI
 * launch stores the student, the exam and the organization under a random link id; the
 * link runs the router's own launch (`GET /launch/:examId`: prepared tokens, fair share,
 * waiting page, coalescing, fleet) with the student taken from here instead of
 * `req.user`, so the sign-in token is asked for only when the link is followed.
 *
 * Single use: the first follow takes the link. A launch that answers the waiting page
 * refreshes to the same path with `?wait=`: that is honoured (the launch checks the wait
 * id belongs to this student) while the followed link lives, but the plain link does
 * not open a second time.
 */
import type { NextFunction, Request, RequestHandler, Response } from "express";
import type { Logger } from "../core/logger.js";
import type { SingleUseStore } from "../fleet/single-use.js";
import type { LtiStudentFields } from "./options.js";
import { sendLtiPage } from "./pages.js";

export type LinkKind = "oral" | "roleplay";

export interface LinkRecord {
  kind: LinkKind;
  examId: string;
  student: LtiStudentFields;
  /** What `organizationFor` answered (undefined: the router's own). */
  organization: string | undefined;
}

/** What the router's launch reads from an LTI link's request. */
export interface LtiLaunchOf {
  student: LtiStudentFields;
  organization: string | undefined;
}

const launched = new WeakMap<Request, LtiLaunchOf>();

/** The LTI launch this request follows, if it came through an exam link. */
export function ltiLaunchOf(req: Request): LtiLaunchOf | undefined {
  return launched.get(req);
}

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

/**
 * Whether the router's organization step (run before this route) found another
 * organization than the one the link was made for: checked before the link is taken.
 */
function forAnotherOrganization(res: Response, text: string | undefined): boolean {
  const current = (res.locals.oralAssessmentsOrganization as { id?: unknown } | undefined)?.id;
  const wanted = text === undefined ? undefined : (JSON.parse(text) as LinkRecord).organization;
  return typeof current === "string" && wanted !== undefined && wanted !== current;
}

/** `openExam`: the router's launch for that kind; `followedTtlMs`: how long a waiting page may refresh. */
export function openLinkRoute(kind: LinkKind, store: SingleUseStore, openExam: RequestHandler, followedTtlMs: number, logger: Logger, frameAncestors: readonly string[]): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    void (async () => {
      // A HEAD or a prefetch must not spend the link (the student's click would find it used).
      if (req.method === "HEAD" || /prefetch|prerender/i.test(String(req.get("sec-purpose") ?? req.get("purpose") ?? ""))) {
        res.setHeader("Cache-Control", "no-store");
        res.status(204).end();
        return;
      }
      const linkId = String(req.params.linkId ?? "");
      const examId = String(req.params.examId ?? req.params.roleplayId ?? "");
      const resuming = req.query.wait !== undefined;
      let text: string | undefined;
      if (resuming) text = await store.peek(followedKey(linkId));
      else if (forAnotherOrganization(res, await store.peek(linkKey(linkId)))) {
        // Followed under another school: the launch answers its 404, and the link stays for the right one.
        text = await store.peek(linkKey(linkId));
      } else {
        text = await store.take(linkKey(linkId));
        if (text !== undefined) await store.put(followedKey(linkId), text, followedTtlMs);
      }
      const record = text === undefined ? undefined : (JSON.parse(text) as LinkRecord);
      if (!record || record.kind !== kind || record.examId !== examId) {
        logger.info({ event: "lti_link_refused", resuming }, "an LTI exam link was used, expired or altered");
        res.setHeader("X-Robots-Tag", "noindex");
        return sendLtiPage(res, frameAncestors, {
          status: 410, title: "This exam link has been used",
          message: "Exam links from your LMS work once and for a few minutes. Go back to your course in the LMS and open the exam again.",
        });
      }
      launched.set(req, { student: record.student, organization: record.organization });
      openExam(req, res, next);
    })().catch(next);
  };
}
