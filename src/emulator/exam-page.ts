/**
 * The exam pages: `/exam/:examId` and its sub-pages, served on the emulator's own origin,
 * which stands in for the organization's custom domain.
 *
 * `/exam/:examId` does what the identity provider's ticket sign-in does there: it reads the
 * ticket from `?<ticketParam>=`, verifies it (signature, expiry, one use, right class) and
 * shows who is signed in. Refusals are HTML pages a person can read:
 *
 *   no ticket, forged or unknown ticket, expired ticket → 401
 *   ticket already used                                  → 410 Gone (the link is spent for good)
 *   ticket for another class                             → 403 (the ticket is not used up)
 *   unknown exam                                         → 404
 *
 * Every answer is `Cache-Control: no-store` and `Referrer-Policy: no-referrer`: the URL
 * holds a credential that must not be cached or leak to other sites.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { EmulatorContext } from "./context.js";
import { pathSegments, sendText } from "./http.js";
import type { JsonRecord } from "./state.js";
import type { TicketRefusal } from "./tickets.js";

const SUB_PAGES: Record<string, string> = {
  "thank-you": "Thank you",
  "oral-learning": "Oral learning",
  roleplay: "Role-play",
  live: "Live session",
};

const REFUSALS: Record<TicketRefusal, { status: number; title: string; message: string }> = {
  missing: { status: 401, title: "Sign-in required", message: "This exam link has no sign-in ticket. Open the exam again from your school's site." },
  invalid: { status: 401, title: "Invalid sign-in link", message: "This sign-in link is not valid. Open the exam again from your school's site." },
  expired: { status: 401, title: "Sign-in link expired", message: "This sign-in link has expired. Open the exam again from your school's site to get a new one." },
  used: { status: 410, title: "Sign-in link already used", message: "This sign-in link has already been used. Open the exam again from your school's site to get a new one." },
  wrong_class: { status: 403, title: "Wrong class", message: "This sign-in link is for a different class than this exam." },
};

const HEADERS = {
  "Cache-Control": "no-store",
  "Referrer-Policy": "no-referrer",
  "X-Content-Type-Options": "nosniff",
};

export function escapeHtml(value: unknown): string {
  return String(value ?? "").replace(/[&<>"']/g, (c) =>
    ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);
}

function page(title: string, body: string, extraHead = ""): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(title)}</title>${extraHead}
<style>body{font-family:system-ui,sans-serif;max-width:42rem;margin:2rem auto;padding:0 1rem;line-height:1.5}
.who{color:#555}.error{color:#a00}</style>
</head>
<body>
${body}
</body>
</html>
`;
}

function sendPage(res: ServerResponse, status: number, html: string): void {
  sendText(res, status, html, "text/html; charset=utf-8", HEADERS);
}

function errorPage(res: ServerResponse, status: number, title: string, message: string): void {
  sendPage(res, status, page(title, `<h1 class="error">${escapeHtml(title)}</h1>\n<p>${escapeHtml(message)}</p>`));
}

function questionsHtml(exam: JsonRecord): string {
  const questions = Array.isArray(exam.questions) ? (exam.questions as unknown[]) : [];
  if (questions.length === 0) return "<p>The questions will be generated for you when the exam starts.</p>";
  const items = questions.map((q) => `<li>${escapeHtml((q as { text?: unknown } | null)?.text)}</li>`);
  return `<ol class="questions">\n${items.join("\n")}\n</ol>`;
}

function examPage(exam: JsonRecord, studentName: string, examPath: string): string {
  const minutes = typeof exam.duration === "number" ? Math.round(exam.duration / 60) : undefined;
  const about = [exam.examDescription, exam.instructions].filter((t): t is string => typeof t === "string" && t.length > 0);
  const body = [
    `<p class="who">Signed in as ${escapeHtml(studentName)}</p>`,
    `<h1>${escapeHtml(exam.name)}</h1>`,
    minutes !== undefined ? `<p>Duration: ${minutes} minute${minutes === 1 ? "" : "s"}</p>` : "",
    ...about.map((t) => `<p>${escapeHtml(t)}</p>`),
    questionsHtml(exam),
    `<p><a href="${escapeHtml(examPath)}/thank-you">Finish the exam</a></p>`,
  ].filter(Boolean).join("\n");
  // Like the identity provider's components: drop the spent ticket from the address bar.
  return page(String(exam.name ?? "Exam"), body, '\n<script>history.replaceState(null, "", location.pathname);</script>');
}

export async function handleExam(
  ctx: EmulatorContext,
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  query: string,
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
  const exam = ctx.state.assessment(examId)?.record;
  if (!exam) return errorPage(res, 404, "Exam not found", "There is no exam at this address. Check the link you followed.");
  const examPath = `/exam/${encodeURIComponent(examId)}`;

  if (sub !== undefined) {
    const title = SUB_PAGES[sub]!;
    const text = sub === "thank-you" ? "Your answers have been submitted." : "This part of the exam is not emulated.";
    return sendPage(res, 200, page(`${title} · ${String(exam.name)}`,
      `<h1>${escapeHtml(title)}</h1>\n<p>${escapeHtml(exam.name)}</p>\n<p>${escapeHtml(text)}</p>`));
  }

  const ticket = new URLSearchParams(query).get(ctx.options.ticketParam) ?? undefined;
  const result = await ctx.tickets.redeem(ticket, String(exam.classId));
  if (!result.ok) {
    const refusal = REFUSALS[result.reason];
    ctx.logger.info({ path: examPath, status: refusal.status, reason: result.reason }, "emulator exam sign-in refused");
    return errorPage(res, refusal.status, refusal.title, refusal.message);
  }
  ctx.logger.debug({ path: examPath, status: 200 }, "emulator exam sign-in");
  sendPage(res, 200, examPage(exam, result.claims.name, examPath));
}
