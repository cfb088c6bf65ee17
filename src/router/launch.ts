/**
 * `GET /launch/:examId`: the student's way into an exam. Finds the logged-in student,
 * checks they may launch, gets a one-time sign-in token from the platform (custom
 * domain only) and redirects (303) to the exam page. A browser route: it answers with a
 * redirect or a short HTML page, never JSON.
 */
import type { Request, Response } from "express";
import { PlatformError } from "../platform/errors.js";
import { SignInTokenRequest } from "../platform/schemas.js";
import type { OralStore } from "../store/types.js";
import { asyncHandler } from "./guards.js";
import { userOf } from "./user.js";
import { sendPage } from "./html.js";
import type { LaunchContext, RouterSettings, StudentIdentity } from "./options.js";

/** Exam ids are platform `_id`s: anything else is refused before a lookup or a redirect. */
export const EXAM_ID_PATTERN = /^[A-Za-z0-9_-]{1,128}$/;

const StudentFields = SignInTokenRequest.pick({ email: true, firstName: true, lastName: true, orgInternalId: true });

const FIELD_NAMES: Record<string, string> = {
  email: "e-mail address",
  firstName: "first name",
  lastName: "last name",
  orgInternalId: "user id",
};

export type LaunchOutcome =
  | "redirected" | "login_required" | "bad_exam_id" | "unknown_exam" | "student_incomplete"
  | "forbidden" | "class_full" | "platform_failed" | "platform_timeout" | "platform_busy";

export function launchRoute(settings: RouterSettings, store: () => Promise<OralStore>) {
  const { platform, logger } = settings;

  function done(req: Request, outcome: LaunchOutcome, status: number, started: number, extra: Record<string, unknown> = {}): void {
    const entry = { event: "launch", outcome, status, examId: req.params.examId, durationMs: Math.round(performance.now() - started), ...extra };
    if (status >= 500) logger.warn(entry, `launch ${outcome}`);
    else logger.info(entry, `launch ${outcome}`);
  }

  async function classOf(examId: string, req: Request): Promise<{ classId: string; courseId: string | undefined } | undefined> {
    const record = await (await store()).getAssessment(examId);
    if (record) return { classId: record.classId, courseId: record.courseId };
    const resolved = settings.resolveClassId ? await settings.resolveClassId(examId, req) : undefined;
    if (typeof resolved === "string" && resolved.length > 0) return { classId: resolved, courseId: undefined };
    if (resolved && typeof resolved === "object" && resolved.classId) return { classId: resolved.classId, courseId: resolved.courseId };
    return undefined;
  }

  return asyncHandler(async (req: Request, res: Response) => {
    const started = performance.now();
    const examId = String(req.params.examId ?? "");
    const selfHref = req.originalUrl;

    if (!userOf(req)) {
      if (settings.loginUrl) {
        // Only the path on this site: an absolute returnTo would be an open redirect.
        const returnTo = `${req.baseUrl}/launch/${encodeURIComponent(examId)}`;
        const sep = settings.loginUrl.includes("?") ? "&" : "?";
        res.setHeader("Cache-Control", "no-store");
        res.redirect(303, `${settings.loginUrl}${sep}returnTo=${encodeURIComponent(returnTo)}`);
        return done(req, "login_required", 303, started);
      }
      sendPage(res, { status: 401, title: "Please sign in", message: "Sign in to your account, then open the exam link again." });
      return done(req, "login_required", 401, started);
    }

    if (!EXAM_ID_PATTERN.test(examId)) {
      sendPage(res, { status: 400, title: "Not an exam link", message: "This link does not point to an exam. Check the link you were given." });
      return done(req, "bad_exam_id", 400, started);
    }

    const found = await classOf(examId, req);
    if (!found) {
      sendPage(res, { status: 404, title: "Exam not found", message: "We could not find this exam. It may have been removed; ask your instructor for a new link." });
      return done(req, "unknown_exam", 404, started);
    }

    const parsed = StudentFields.safeParse((await settings.student(req)) ?? {});
    if (!parsed.success) {
      const fields = [...new Set(parsed.error.issues.map((i) => String(i.path[0] ?? "student")))];
      const named = fields.map((f) => `${FIELD_NAMES[f] ?? f} (${f})`).join(", ");
      sendPage(res, { status: 400, title: "Your account is missing information", message: `The exam needs your ${named}. Ask your administrator to complete your profile.` });
      return done(req, "student_incomplete", 400, started, { fields });
    }
    const student: StudentIdentity = parsed.data;
    const ctx: LaunchContext = { examId, classId: found.classId, courseId: found.courseId, student };
    const user = student.orgInternalId;

    if (settings.canLaunch && !(await settings.canLaunch(req, ctx))) {
      sendPage(res, { status: 403, title: "You cannot take this exam", message: "Your account is not enrolled for this exam. Ask your instructor if you think this is wrong." });
      return done(req, "forbidden", 403, started, { user });
    }

    let target: string;
    if (settings.examHost === undefined) {
      // The platform's own host signs students in itself: no token needed.
      target = `${platform.platformOrigin}/exam/${encodeURIComponent(examId)}`;
    } else {
      try {
        const { data } = await platform.students.createSignInToken(
          { ...student, classId: found.classId, ...(found.courseId ? { courseId: found.courseId } : {}) },
          { priority: "launch" },
        );
        target = `${settings.examHost}/exam/${encodeURIComponent(examId)}?${settings.ticketParam}=${encodeURIComponent(data.token)}`;
      } catch (error) {
        if (!(error instanceof PlatformError)) throw error;
        return failed(req, res, error, selfHref, started, user);
      }
    }

    res.setHeader("Cache-Control", "no-store");
    res.setHeader("Referrer-Policy", "no-referrer");
    res.redirect(303, target);
    done(req, "redirected", 303, started, { user, classId: found.classId });
  });

  function failed(req: Request, res: Response, error: PlatformError, retryHref: string, started: number, user: string): void {
    const meta = { user, kind: error.kind, code: error.code, platformStatus: error.status, requestId: error.requestId };
    if (error.kind === "conflict") {
      sendPage(res, { status: 409, title: "This exam is full", message: "The class has no free places left. Ask your instructor." });
      return done(req, "class_full", 409, started, meta);
    }
    if (error.kind === "not_found") {
      sendPage(res, { status: 404, title: "Exam not found", message: "The platform no longer knows this exam's class. Ask your instructor for a new link." });
      return done(req, "unknown_exam", 404, started, meta);
    }
    if (error.kind === "timeout") {
      sendPage(res, { status: 504, title: "The exam service is slow to answer", message: "Please wait a moment and try again.", retryHref });
      return done(req, "platform_timeout", 504, started, meta);
    }
    if (error.kind === "rate_limited") {
      const retryAfter = error.retryAfter ?? 10;
      sendPage(res, { status: 503, title: "The exam service is busy", message: `Many students are starting at once. Please try again in ${Math.ceil(retryAfter)} seconds.`, retryHref, retryAfter });
      return done(req, "platform_busy", 503, started, meta);
    }
    sendPage(res, { status: 502, title: "The exam service is not available", message: "We could not reach the exam service. Please try again in a minute.", retryHref });
    done(req, "platform_failed", 502, started, meta);
  }
}
