/**
 * The example app's own pages: the files in public/ under the pages' CSP, the /continue
 * page a login with `returnTo` ends on, and the plugin's pages in this app's layout.
 */
import path from "node:path";
import { fileURLToPath } from "node:url";

export const PUBLIC_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), "public");

/** Our own pages load scripts and styles from /assets only: no inline code at all. */
export const PAGE_CSP = [
  "default-src 'self'", "script-src 'self'", "style-src 'self'", "img-src 'self' data:",
  "connect-src 'self'", "form-action 'self'", "frame-ancestors 'none'", "base-uri 'none'", "object-src 'none'",
].join("; ");

/** Escapes text for an HTML attribute or element. */
const escapeHtml = (text) => String(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * The page a login with `returnTo` ends on. The login form's redirect chain must stay on
 * this site: Chromium applies the login page's `form-action 'self'` to every redirect
 * after a form submission, so a chain that went on to a launch (and from there to the
 * exam host) was blocked, leaving the student on the login form with a wasted sign-in
 * token. From this page the browser navigates to `returnTo` afresh (continue.js, or the
 * link without JavaScript): a navigation that is not a form submission.
 */
export const continuePage = (to) => `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Signed in · Oral assessments example</title>
  <link rel="stylesheet" href="/assets/styles.css">
  <script type="module" src="/assets/continue.js"></script>
</head>
<body>
  <main class="narrow">
    <div class="card">
      <h1>Signed in</h1>
      <p><a id="continue" href="${escapeHtml(to)}">Continue</a></p>
    </div>
  </main>
</body>
</html>
`;

/**
 * The plugin's pages (not enrolled, exam full, waiting, platform down…) in this app's
 * layout: our header with the student's name and "Log out", our stylesheet, and our own
 * CSP (the plugin sends its CSP only with its built-in pages). `page` is plain text and
 * links, escaped here; the plugin has already set the status, no-store, Retry-After and,
 * on the waiting page, a `Refresh` header, so no meta refresh and no script is needed.
 */
export const layoutPage = (name, school, page) => `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>${escapeHtml(page.title)} · Oral assessments example</title>
  <link rel="stylesheet" href="/assets/styles.css">
</head>
<body>
  <header class="topbar">
    <div>
      ${school === undefined ? "" : `<div class="school" id="school">${escapeHtml(school)}</div>`}
      <h1>${escapeHtml(page.title)}</h1>
    </div>
    ${name === undefined ? "" : `<div class="who">
      <span>${escapeHtml(name)}</span>
      <form method="post" action="/logout"><button type="submit" class="link" id="logout">Log out</button></form>
    </div>`}
  </header>
  <main class="narrow">
    <section class="card" data-kind="${escapeHtml(page.kind)}">
      <p>${escapeHtml(page.message)}</p>
      ${page.links.map((l) => `<p><a href="${escapeHtml(l.href)}">${escapeHtml(l.text)}</a></p>`).join("\n      ")}
    </section>
  </main>
</body>
</html>
`;

/**
 * The plugin's page as this app shows it. An instructor who opens a student launch link
 * (the dashboard's "Open") is refused like any user on no roster, and the plugin's text
 * ("ask your instructor") is written for students: the instructor is told what the link
 * is for and how to try it instead.
 */
export function pageFor(user, page) {
  if (page.kind !== "forbidden" || user?.role !== "instructor") return page;
  return {
    ...page,
    title: "This launch link is for students",
    message: "A student on the class roster who opens this link is signed in on the exam site and the exam starts. " +
      "Instructors are on no class roster, so it starts no exam for you. To try it, log out and log in as an enrolled student.",
  };
}

/** The headers of every page of ours: the pages' CSP, no referrer off the site, never cached. */
export function pageHeaders(res) {
  res.setHeader("Content-Security-Policy", PAGE_CSP);
  res.setHeader("Referrer-Policy", "same-origin");
  res.setHeader("Cache-Control", "no-store");
}

/** Sends a file of public/ as a page. */
export function sendPage(res, file) {
  pageHeaders(res);
  res.sendFile(path.join(PUBLIC_DIR, file));
}
