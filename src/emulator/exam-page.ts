/**
 * The exam pages, served on the emulator's own origin, which stands in for the platform's
 * own host (every organization's exams) and, without `organizations`, for the custom domain
 * too, and on each organization's exam host (its exams only; site.ts):
 *
 *   /exam/:id             an oral assessment (a role-play's id → 303 to its /roleplay page)
 *   /exam/:id/roleplay    a role-play
 *   /exam/:id/thank-you   completion; /oral-learning and /live are placeholders
 *
 * The two exam pages sign the student in as the identity provider does: a ticket in
 * `?<ticketParam>=` is verified (signature, expiry, one use, right class) and starts a
 * session (a `__session` cookie), so a reload mid-exam stays signed in. Without a ticket,
 * the session decides (the person must be enrolled in the exam's class). Refusals are
 * HTML pages a person can read:
 *
 *   no ticket and no session                             → 401, with links to the platform's
 *                                                          sign-in and back to the school (`/`)
 *   forged or unknown ticket, expired ticket             → 401
 *   ticket already used                                  → 410 Gone (the link is spent for good)
 *   ticket for another class; session not in the class   → 403 (the ticket is not used up)
 *   another organization's exam at an exam host          → 403 (checked first: nothing is used up)
 *   unknown exam                                         → 404
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { findExam, type EmulatorContext, type FoundExam } from "./context.js";
import { escapeHtml } from "../core/html.js";
import { errorPage, examHtml, page, redirect, roleplayHtml, sendPage } from "./exam-html.js";
import { pathSegments } from "./http.js";
import { opensExamsOf, PLATFORM_SITE, type Site } from "./site.js";
import type { TicketRefusal } from "./tickets.js";

const SUB_PAGES: Record<string, string> = {
  "thank-you": "Thank you",
  "oral-learning": "Oral learning",
  roleplay: "Role-play",
  live: "Live session",
};

/** Where "Back to your school" leads: the vendor's post-exam redirect is admin-UI only, so the emulator's home. */
const SCHOOL_LINK: [string, string] = ["/", "Back to your school"];

const REFUSALS: Record<TicketRefusal, { status: number; title: string; message: string }> = {
  missing: { status: 401, title: "Sign-in required", message: "You are not signed in, and this exam link has no sign-in ticket. Open the exam again from your school's site, or sign in on the platform." },
  invalid: { status: 401, title: "Invalid sign-in link", message: "This sign-in link is not valid. Open the exam again from your school's site." },
  expired: { status: 401, title: "Sign-in link expired", message: "This sign-in link has expired. Open the exam again from your school's site to get a new one." },
  used: { status: 410, title: "Sign-in link already used", message: "This sign-in link has already been used. Open the exam again from your school's site to get a new one." },
  wrong_class: { status: 403, title: "Wrong class", message: "This sign-in link is for a different class than this exam." },
};

export async function handleExam(
  ctx: EmulatorContext,
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  query: string,
  site: Site = PLATFORM_SITE,
): Promise<void> {
  req.resume();
  // GET only: a HEAD (link previewers send them) must not spend a one-time ticket.
  if (req.method !== "GET") {
    return errorPage(res, 405, "Method not allowed", "Exam pages are opened with GET.");
  }
  const segments = pathSegments(path);
  const [, examId, sub, ...rest] = segments ?? [];
  if (!segments || !examId || rest.length > 0 || (sub !== undefined && !(sub in SUB_PAGES))) {
    return errorPage(res, 404, "Page not found", "There is no page at this address.");
  }
  const exam = findExam(ctx, examId);
  if (!exam) return errorPage(res, 404, "Exam not found", "There is no exam at this address. Check the link you followed.");
  if (!opensExamsOf(site, exam.org)) {
    ctx.logger.info({ path, status: 403, reason: "another_organization" }, "emulator exam sign-in refused");
    return errorPage(res, 403, "This exam belongs to another school",
      `This is ${site.organization!.name}'s exam site, and this exam is another school's. Open it from your own school's site.`, [SCHOOL_LINK]);
  }
  const examPath = `/exam/${encodeURIComponent(examId)}`;

  if (exam.kind === "roleplay" && sub === undefined) {
    // The entry link of a role-play leads to its page, ticket and all.
    return redirect(res, `${examPath}/roleplay${query ? `?${query}` : ""}`);
  }
  const examPage = exam.kind === "oral" ? sub === undefined : sub === "roleplay";
  if (examPage) return signedIn(ctx, req, res, { exam, examPath, query, site });
  if (sub === "roleplay" || (exam.kind === "roleplay" && sub !== "thank-you")) {
    return errorPage(res, 404, "Page not found", `This ${exam.kind === "oral" ? "oral assessment" : "role-play"} has no such page.`);
  }
  const title = SUB_PAGES[sub!]!;
  const text = sub === "thank-you" ? "Your answers have been submitted." : "This part of the exam is not emulated.";
  sendPage(res, 200, page(`${title} · ${String(exam.record.name)}`,
    `<h1>${escapeHtml(title)}</h1>\n<p>${escapeHtml(exam.record.name)}</p>\n<p>${escapeHtml(text)}</p>`));
}

/** Signs the student in (ticket, else session) and shows the exam, or a refusal page. */
async function signedIn(
  ctx: EmulatorContext,
  req: IncomingMessage,
  res: ServerResponse,
  { exam, examPath, query, site }: { exam: FoundExam; examPath: string; query: string; site: Site },
): Promise<void> {
  const pagePath = exam.kind === "roleplay" ? `${examPath}/roleplay` : examPath;
  const render = exam.kind === "roleplay" ? roleplayHtml : examHtml;
  const classId = String(exam.record.classId);
  const ticket = new URLSearchParams(query).get(ctx.options.ticketParam) ?? undefined;

  if (ticket === undefined) {
    const session = ctx.sessions.of(req, site.sessionCookie);
    if (!session) {
      const refusal = REFUSALS.missing;
      return errorPage(res, refusal.status, refusal.title, refusal.message,
        [[`/sign-in?redirect_url=${encodeURIComponent(pagePath)}`, "Sign in on the platform"], SCHOOL_LINK]);
    }
    if (!exam.state.student(classId, session.email)) {
      return errorPage(res, 403, "Not in this class", `You are signed in as ${session.name}, who is not a student of this exam's class.`, [SCHOOL_LINK]);
    }
    return sendPage(res, 200, render(exam.record, session.name, examPath));
  }

  const result = await ctx.tickets.redeem(ticket, classId);
  if (!result.ok) {
    const refusal = REFUSALS[result.reason];
    ctx.logger.info({ path: pagePath, status: refusal.status, reason: result.reason }, "emulator exam sign-in refused");
    return errorPage(res, refusal.status, refusal.title, refusal.message, [SCHOOL_LINK]);
  }
  ctx.logger.debug({ path: pagePath, status: 200 }, "emulator exam sign-in");
  const cookie = ctx.sessions.start({ name: result.claims.name, email: result.claims.email }, site.sessionCookie);
  sendPage(res, 200, render(exam.record, result.claims.name, examPath), { "Set-Cookie": cookie });
}
