/**
 * The HTML of the emulator's pages (exam pages and the platform host's sign-in): plain
 * server-rendered pages with every value escaped, sent `no-store` and `no-referrer`
 * (exam URLs can hold a one-time credential).
 */
import type { OutgoingHttpHeaders, ServerResponse } from "node:http";
import { escapeHtml } from "../core/html.js";
import { sendText } from "./http.js";
import type { JsonRecord } from "./state.js";

const HEADERS = {
  "Cache-Control": "no-store",
  "Referrer-Policy": "no-referrer",
  "X-Content-Type-Options": "nosniff",
};


export function page(title: string, body: string, extraHead = ""): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(title)}</title>${extraHead}
<style>body{font-family:system-ui,sans-serif;max-width:42rem;margin:2rem auto;padding:0 1rem;line-height:1.5}
.who{color:#555}.error{color:#a00}label{display:block;margin:.5rem 0}</style>
</head>
<body>
${body}
</body>
</html>
`;
}

export function sendPage(res: ServerResponse, status: number, html: string, headers: OutgoingHttpHeaders = {}): void {
  sendText(res, status, html, "text/html; charset=utf-8", { ...HEADERS, ...headers });
}

/** A refusal a person can read; `links` are `[href, text]` ways on. */
export function errorPage(res: ServerResponse, status: number, title: string, message: string, links: [string, string][] = []): void {
  const ways = links.map(([href, text]) => `<p><a class="way" href="${escapeHtml(href)}">${escapeHtml(text)}</a></p>`);
  sendPage(res, status, page(title, [`<h1 class="error">${escapeHtml(title)}</h1>`, `<p>${escapeHtml(message)}</p>`, ...ways].join("\n")));
}

export function redirect(res: ServerResponse, location: string, headers: OutgoingHttpHeaders = {}): void {
  sendText(res, 303, "", "text/plain; charset=utf-8", { ...HEADERS, ...headers, Location: location });
}

function questionsHtml(exam: JsonRecord): string {
  const questions = Array.isArray(exam.questions) ? (exam.questions as unknown[]) : [];
  if (questions.length === 0) return "<p>The questions will be generated for you when the exam starts.</p>";
  const items = questions.map((q) => `<li>${escapeHtml((q as { text?: unknown } | null)?.text)}</li>`);
  return `<ol class="questions">\n${items.join("\n")}\n</ol>`;
}

const minutesOf = (seconds: unknown) => (typeof seconds === "number" ? Math.round(seconds / 60) : undefined);
const durationHtml = (minutes: number | undefined) =>
  minutes === undefined ? "" : `<p>Duration: ${minutes} minute${minutes === 1 ? "" : "s"}</p>`;
// Like the identity provider's components: drop the spent ticket from the address bar.
const STRIP_TICKET = '\n<script>history.replaceState(null, "", location.pathname);</script>';

export function examHtml(exam: JsonRecord, studentName: string, examPath: string): string {
  const about = [exam.examDescription, exam.instructions].filter((t): t is string => typeof t === "string" && t.length > 0);
  const body = [
    `<p class="who">Signed in as ${escapeHtml(studentName)}</p>`,
    `<h1>${escapeHtml(exam.name)}</h1>`,
    durationHtml(minutesOf(exam.duration)),
    ...about.map((t) => `<p>${escapeHtml(t)}</p>`),
    questionsHtml(exam),
    `<p><a href="${escapeHtml(examPath)}/thank-you">Finish the exam</a></p>`,
  ].filter(Boolean).join("\n");
  return page(String(exam.name ?? "Exam"), body, STRIP_TICKET);
}

/** The student's side of a role-play: roles and scenario (the AI's instructions stay hidden). */
export function roleplayHtml(roleplay: JsonRecord, studentName: string, examPath: string): string {
  const body = [
    `<p class="who">Signed in as ${escapeHtml(studentName)}</p>`,
    `<h1>${escapeHtml(roleplay.name)}</h1>`,
    `<p class="kind">Role-play</p>`,
    durationHtml(minutesOf(roleplay.roleplayDuration)),
    `<p>You play: <strong class="student-role">${escapeHtml(roleplay.roleplayStudentRole)}</strong></p>`,
    `<p>Your partner plays: <strong class="partner-role">${escapeHtml(roleplay.roleplayCoralRole)}</strong></p>`,
    `<p class="scenario">${escapeHtml(roleplay.roleplayScenario)}</p>`,
    `<p><a href="${escapeHtml(examPath)}/thank-you">Finish the role-play</a></p>`,
  ].filter(Boolean).join("\n");
  return page(String(roleplay.name ?? "Role-play"), body, STRIP_TICKET);
}
