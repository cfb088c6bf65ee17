/**
 * The LTI routes' HTML: small standalone documents that live inside the LMS's frame. Each
 * answers with the LTI headers (issue point 10): a CSP whose `frame-ancestors` lists the
 * LMS origins of the registration the request acts for once it is known
 * (`useFrameAncestors`: a launch from LMS A cannot be framed by LMS B), else the registered
 * LMS origins (a refusal before the registration is known), `Cache-Control: no-store`, `Referrer-Policy:
 * no-referrer`; scripts run only with this response's nonce, forms post only to this
 * tool (and, for deep linking, to the LMS). No CORS header is ever sent.
 */
import type { Response } from "express";
import { escapeHtml } from "../../core/html.js";
import { randomId } from "../../core/random-id.js";

const STYLE = "body{font:16px/1.5 system-ui,sans-serif;max-width:36rem;margin:2rem auto;padding:0 1rem;color:#1f2328;overflow-wrap:break-word}h1{font-size:1.3rem}a,button{font:inherit}button{padding:.5rem 1rem}.admin{background:#fff8c5;padding:.5rem 1rem}.scroll{overflow-x:auto}.scroll td:first-child{white-space:nowrap}table{border-collapse:collapse}th,td{padding:.25rem .5rem;text-align:left;border-bottom:1px solid #d0d7de}";

export interface LtiPage {
  status: number;
  title: string;
  /** Plain text (escaped). */
  message: string;
  /** Plain text (escaped): what to tell the LMS administrator. */
  forAdministrator?: string;
  /** Trusted HTML added after the message (built with escapeHtml). */
  body?: string;
  /** Script source; runs with this response's nonce. */
  script?: string;
  /** Extra origins forms on this page may post to (deep linking returns to the LMS). */
  formTargets?: string[];
}

const added = new WeakMap<Response, { html: string; script: string }>();

/**
 * Trusted HTML and a script for the page this response will answer with, whichever
 * handler sends it: a step asked for by an earlier one (launch.ts's state check asks for
 * Platform Storage's removal, platform-storage.ts).
 */
export function addToPage(res: Response, html: string, script: string): void {
  const before = added.get(res);
  added.set(res, { html: `${before?.html ?? ""}${html}`, script: `${before?.script ?? ""}${script}` });
}

/** Where `useFrameAncestors` keeps a response's own list. */
const OWN_FRAME_ANCESTORS = "eoaLtiFrameAncestors";

/**
 * The origins that may frame this response's page, from now on: the LMS of the
 * registration the request turned out to act for (`originsOf(registration)`), instead of
 * every registration's. Pages answered before it is known keep the list they are given.
 */
export function useFrameAncestors(res: Response, origins: readonly string[]): void {
  res.locals[OWN_FRAME_ANCESTORS] = origins;
}

export function sendLtiPage(res: Response, frameAncestors: readonly string[], page: LtiPage): void {
  const nonce = randomId(18);
  const list = (res.locals[OWN_FRAME_ANCESTORS] as readonly string[] | undefined) ?? frameAncestors;
  const ancestors = list.length > 0 ? list.join(" ") : "'none'";
  res.status(page.status);
  res.setHeader("Content-Security-Policy", [
    "default-src 'none'", `script-src 'nonce-${nonce}'`, `style-src 'nonce-${nonce}'`, `frame-ancestors ${ancestors}`,
    "base-uri 'none'", `form-action 'self' ${(page.formTargets ?? []).join(" ")}`.trim(),
  ].join("; "));
  ltiHeaders(res);
  res.setHeader("Content-Type", "text/html; charset=utf-8");
  const admin = page.forAdministrator ? `<p class="admin"><strong>For your LMS administrator:</strong> ${escapeHtml(page.forAdministrator)}</p>` : "";
  const extra = added.get(res);
  const script = [page.script, extra?.script].filter((s) => s).map((s) => `<script nonce="${nonce}">${s}</script>`).join("");
  // Not res.send: an answer kept nowhere (no-store) needs no ETag, and hashing each page is work a flood of requests would buy.
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer"><title>${escapeHtml(page.title)}</title>
<style nonce="${nonce}">${STYLE}</style>
</head><body><main><h1>${escapeHtml(page.title)}</h1><p id="message">${escapeHtml(page.message)}</p>${admin}${page.body ?? ""}${extra?.html ?? ""}</main>${script}</body></html>`;
  res.setHeader("Content-Length", Buffer.byteLength(html));
  res.end(html);
}

/** The headers every LTI answer carries (pages and redirects alike). */
export function ltiHeaders(res: Response): void {
  res.setHeader("Cache-Control", "no-store");
  res.setHeader("Referrer-Policy", "no-referrer");
  res.setHeader("X-Content-Type-Options", "nosniff");
}
