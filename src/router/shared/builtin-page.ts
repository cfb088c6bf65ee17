/**
 * The router's own HTML for a page: a small standalone document, every interpolated
 * value escaped, styled by one inline `<style>` that its Content-Security-Policy allows
 * by hash (no `'unsafe-inline'`), with no script at all (the waiting page refreshes by a
 * meta refresh, which CSP does not govern).
 */
import { createHash } from "node:crypto";
import { escapeHtml } from "../../core/html.js";
import type { RouterPage } from "./router-page.js";


/** The whole style of the built-in pages; its hash is in the CSP, so any edit here is allowed automatically. */
const STYLE = "body{font:16px/1.5 system-ui,sans-serif;max-width:36rem;margin:4rem auto;padding:0 1rem;color:#1f2328;overflow-wrap:break-word}h1{font-size:1.4rem}a{color:#0969da}";

/** Computed once: the CSP source allowing exactly the `<style>` above. */
const STYLE_SOURCE = `'sha256-${createHash("sha256").update(STYLE, "utf8").digest("base64")}'`;

/**
 * Nothing may load or run; only our own style applies; no site may frame the page (a
 * clickjacked "Start my exam" link would spend the student's attempt); a form or `<base>`
 * injected despite the escaping would go nowhere.
 */
export const BUILTIN_PAGE_CSP = [
  "default-src 'none'", `style-src ${STYLE_SOURCE}`, "frame-ancestors 'none'", "base-uri 'none'", "form-action 'none'",
].join("; ");

export function builtInPageHtml(page: RouterPage): string {
  const refresh = page.refresh
    ? `\n<meta http-equiv="refresh" content="${page.refresh.seconds};url=${escapeHtml(page.refresh.href)}">`
    : "";
  const links = page.links.map((l) => `<p><a href="${escapeHtml(l.href)}">${escapeHtml(l.text)}</a></p>`).join("");
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">${refresh}
<title>${escapeHtml(page.title)}</title>
<style>${STYLE}</style>
</head><body><main><h1>${escapeHtml(page.title)}</h1><p>${escapeHtml(page.message)}</p>${links}</main></body></html>`;
}
