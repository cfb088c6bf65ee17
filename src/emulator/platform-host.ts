/**
 * The platform's own host, minimally: a home page (`/`) and a sign-in page (`/sign-in`),
 * so a launch without a custom exam domain (the router redirects to
 * `{platform host}/exam/:id` with no ticket) can be followed end to end.
 *
 * On the real platform the identity provider signs the student in (e-mail code, OAuth).
 * Here the form takes an e-mail and a name, enrols that person in the class of the exam
 * they are going to (as joining through the platform would; class capacity applies),
 * starts the same session the ticket sign-in starts, and 303s back to the exam
 * (`redirect_url`, the identity provider's parameter name; only `/exam/…` paths).
 *
 * Each organization's exam host serves the same two pages for its own organization (its
 * name on them, its own session cookie, its exams only), so the exam page's "Sign in" and
 * "Back to your school" links work there too.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { findExam, type EmulatorContext } from "./context.js";
import { escapeHtml } from "../core/html.js";
import { errorPage, page, redirect, sendPage } from "./exam-html.js";
import { readBody } from "./http.js";
import { opensExamsOf, PLATFORM_SITE, type Site } from "./site.js";

const EXAM_PATH = /^\/exam\/[^/?#\\]+(\/roleplay)?$/;
const FORM_LIMIT = 16 * 1024;

/** A same-site exam path to return to, or `/`: never another origin. */
function safeReturn(value: string | null): string {
  return value !== null && EXAM_PATH.test(value) ? value : "/";
}

function signInForm(site: Site, redirectUrl: string, problem?: string, values: Record<string, string> = {}): string {
  const field = (name: string, label: string, type = "text") =>
    `<label>${label} <input name="${name}" type="${type}" required value="${escapeHtml(values[name] ?? "")}"></label>`;
  return page("Sign in", [
    "<h1>Sign in</h1>",
    `<p>${escapeHtml(siteName(site))} (emulator): sign in to take your exam.</p>`,
    problem ? `<p class="error">${escapeHtml(problem)}</p>` : "",
    '<form method="post" action="/sign-in">',
    `<input type="hidden" name="redirect_url" value="${escapeHtml(redirectUrl)}">`,
    field("email", "E-mail", "email"), field("firstName", "First name"), field("lastName", "Last name"),
    '<button type="submit">Sign in</button>',
    "</form>",
  ].filter(Boolean).join("\n"));
}

const siteName = (site: Site) => site.organization?.name ?? "Oral-assessment platform";

export async function handlePlatformHost(
  ctx: EmulatorContext, req: IncomingMessage, res: ServerResponse, path: string, query: string, site: Site = PLATFORM_SITE,
): Promise<void> {
  if (path === "/") {
    req.resume();
    const session = ctx.sessions.of(req, site.sessionCookie);
    return sendPage(res, 200, page(siteName(site), [
      `<h1>${escapeHtml(siteName(site))} (emulator)</h1>`,
      session ? `<p class="who">Signed in as ${escapeHtml(session.name)}</p>` : '<p><a href="/sign-in">Sign in</a></p>',
      "<p>Open your exam from your school's site.</p>",
    ].join("\n")));
  }
  if (req.method === "GET") {
    req.resume();
    return sendPage(res, 200, signInForm(site, safeReturn(new URLSearchParams(query).get("redirect_url"))));
  }
  if (req.method !== "POST") {
    req.resume();
    return errorPage(res, 405, "Method not allowed", "Use the sign-in form.");
  }

  const body = await readBody(req, FORM_LIMIT);
  if (body.kind === "aborted") return;
  if (body.kind === "too_large") return errorPage(res, 413, "Too large", "The sign-in form is too large.");
  const form = new URLSearchParams(body.kind === "empty" ? "" : body.text);
  const values = Object.fromEntries(["email", "firstName", "lastName"].map((k) => [k, (form.get(k) ?? "").trim().slice(0, 200)]));
  const back = safeReturn(form.get("redirect_url"));
  const missing = Object.entries(values).filter(([, v]) => v === "").map(([k]) => k);
  if (missing.length > 0 || !/^[^\s@]+@[^\s@]+$/.test(values.email!)) {
    const problem = missing.length > 0 ? `Please fill in: ${missing.join(", ")}.` : "Please give a valid e-mail address.";
    return sendPage(res, 400, signInForm(site, back, problem, values));
  }

  const person = { email: values.email!, firstName: values.firstName!, lastName: values.lastName! };
  const examId = back === "/" ? undefined : decodeURIComponent(back.split("/")[2]!);
  const exam = examId === undefined ? undefined : findExam(ctx, examId);
  if (exam && !opensExamsOf(site, exam.org)) {
    return errorPage(res, 403, "This exam belongs to another school", `This is ${siteName(site)}'s sign-in, and this exam is another school's.`, [["/", "Back"]]);
  }
  if (exam) {
    // No integrator id on the platform host: the e-mail stands in for it.
    const enrolled = exam.state.enrol(exam.org, String(exam.record.classId),
      { ...person, orgInternalId: `email:${person.email.toLowerCase()}` }, ctx.options.classCapacity);
    if (enrolled === "full") return errorPage(res, 409, "Class full", "This exam's class has no free places.", [["/", "Back"]]);
  }
  const cookie = ctx.sessions.start({ name: `${person.firstName} ${person.lastName}`, email: person.email }, site.sessionCookie);
  redirect(res, back, { "Set-Cookie": cookie });
}
