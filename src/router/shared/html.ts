/**
 * Small HTML pages for the browser route (launch). Every interpolated value is escaped;
 * pages are never cached and never leak the URL (which may hold a ticket) as a referrer.
 */
import type { Response } from "express";

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

export interface PageOptions {
  status: number;
  title: string;
  /** Plain text; escaped here. */
  message: string;
  /** Shown as a "Try again" link to the same launch URL. */
  retryHref?: string;
  /** Text of that link. Default "Try again". */
  retryText?: string;
  /** Seconds; sent as `Retry-After`. */
  retryAfter?: number;
  /** Extra trusted markup for <head> (e.g. a meta refresh built from escaped values). */
  head?: string;
}

export function renderPage(opts: PageOptions): string {
  const retry = opts.retryHref ? `<p><a href="${escapeHtml(opts.retryHref)}">${escapeHtml(opts.retryText ?? "Try again")}</a></p>` : "";
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">${opts.head ?? ""}
<title>${escapeHtml(opts.title)}</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:36rem;margin:4rem auto;padding:0 1rem;color:#1f2328}h1{font-size:1.4rem}</style>
</head><body><main><h1>${escapeHtml(opts.title)}</h1><p>${escapeHtml(opts.message)}</p>${retry}</main></body></html>`;
}

export function sendPage(res: Response, opts: PageOptions): void {
  if (res.headersSent) return;
  res.status(opts.status);
  res.setHeader("Content-Type", "text/html; charset=utf-8");
  res.setHeader("Cache-Control", "no-store");
  res.setHeader("Referrer-Policy", "no-referrer");
  if (opts.retryAfter !== undefined) res.setHeader("Retry-After", String(Math.max(1, Math.ceil(opts.retryAfter))));
  res.end(renderPage(opts));
}
