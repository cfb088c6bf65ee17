/**
 * Sending the router's HTML pages (the launch route's 4xx, 5xx and waiting pages). Every
 * page carries a way back (`homeUrl`) and the headers that keep it safe: never cached, no
 * referrer to other sites (the URL may hold a wait id), no MIME sniffing. The referrer
 * policy is `same-origin`, not `no-referrer`: under `no-referrer` a browser posts the
 * forms of the host's layout (a "Log out" button) with `Origin: null`, which the host's
 * own CSRF check rightly refuses. With the integrator's
 * `renderPage` the page is drawn inside their layout; otherwise, or when that fails, the
 * built-in page is sent with its own Content-Security-Policy.
 *
 * The page settings reach `sendPage` through the request (`pageSettings` middleware, which
 * the router mounts first), so every feature that answers with a page gets the site's
 * `homeUrl` and layout without threading them through each call.
 */
import type { Request, RequestHandler, Response } from "express";
import { silentLogger, type Logger } from "../../core/logger.js";
import { BUILTIN_PAGE_CSP, builtInPageHtml } from "./builtin-page.js";
import type { RenderPage, RouterPage, RouterPageKind } from "./router-page.js";


export interface PageSettings {
  /** The way back every page links to: a path on this site or an absolute http(s) URL. */
  homeUrl: string;
  renderPage: RenderPage | undefined;
  logger: Logger;
}

export interface PageOptions {
  status: number;
  /** Default: from the status (401 → login_required, 403 → forbidden, 429 → rate_limited, …). */
  kind?: RouterPageKind;
  title: string;
  /** Plain text; escaped when rendered. */
  message: string;
  /** Shown as a "Try again" link to the same launch URL (first of the links). */
  retryHref?: string;
  /** Text of that link. Default "Try again". */
  retryText?: string;
  /** Seconds; sent as `Retry-After`. */
  retryAfter?: number;
  /** The page reloads itself to `href` after `seconds` (`Refresh` header and meta refresh). */
  refresh?: { seconds: number; href: string };
  /** The waiting page: students whose calls go before this one. */
  ahead?: number;
}

/** How long an integrator's `renderPage` may take to answer before the built-in page is sent. */
const RENDER_DEADLINE_MS = 5_000;

const DEFAULT_SETTINGS: PageSettings = { homeUrl: "/", renderPage: undefined, logger: silentLogger };

const KIND_BY_STATUS: Record<number, RouterPageKind> = {
  202: "waiting", 400: "bad_request", 401: "login_required", 403: "forbidden", 404: "not_found", 409: "class_full",
  429: "rate_limited", 500: "internal_error", 502: "platform_failed", 503: "platform_busy", 504: "platform_timeout",
};

/**
 * The request's page settings, as a property under a symbol of this module's: a WeakMap
 * entry per request cost an exam-day storm more (each one an ephemeron for the GC).
 */
const SETTINGS = Symbol("oralAssessmentsPageSettings");
type WithPageSettings = Request & { [SETTINGS]?: PageSettings };
/** Responses whose page the integrator's layout is drawing, with that page (for the fallback). */
const rendering = new WeakMap<Response, RouterPage>();

/** Makes `settings` the page settings of every request through this router. */
export function pageSettings(settings: PageSettings): RequestHandler {
  return (req, _res, next) => {
    (req as WithPageSettings)[SETTINGS] = settings;
    next();
  };
}

export function sendPage(res: Response, opts: PageOptions): void {
  if (res.headersSent) return;
  const req = res.req as Request | undefined;
  const settings = (req as WithPageSettings | undefined)?.[SETTINGS] ?? DEFAULT_SETTINGS;
  const inLayout = rendering.get(res);
  if (inLayout) {
    // An error raised while the layout rendered (`res.render` hands it to `next`, and so
    // to the router's last resort): the built-in version of the page being rendered.
    rendering.delete(res);
    settings.logger.error({ event: "render_page_failed", kind: inLayout.kind, status: inLayout.status }, "renderPage failed; the built-in page was sent");
    return sendBuiltIn(res, inLayout);
  }
  const page = toRouterPage(opts, settings.homeUrl);
  if (!settings.renderPage || !req) return sendBuiltIn(res, page);
  void renderInLayout(settings, settings.renderPage, req, res, page);
}

function toRouterPage(opts: PageOptions, homeUrl: string): RouterPage {
  const links: RouterPage["links"] = [];
  if (opts.retryHref) links.push({ href: opts.retryHref, text: opts.retryText ?? "Try again", rel: "retry" });
  links.push({ href: homeUrl, text: "Back to the home page", rel: "home" });
  const page: RouterPage = {
    status: opts.status,
    kind: opts.kind ?? KIND_BY_STATUS[opts.status] ?? (opts.status >= 500 ? "platform_failed" : "bad_request"),
    title: opts.title,
    message: opts.message,
    links,
  };
  if (opts.retryAfter !== undefined) page.retryAfter = Math.max(1, Math.ceil(opts.retryAfter));
  if (opts.refresh) page.refresh = { ...opts.refresh };
  if (opts.ahead !== undefined) page.ahead = opts.ahead;
  return page;
}

/** Status and the headers both renderings share; our CSP only for our own markup. */
function writeHead(res: Response, page: RouterPage, builtIn: boolean): void {
  res.status(page.status);
  res.setHeader("Content-Type", "text/html; charset=utf-8");
  res.setHeader("Cache-Control", "no-store");
  res.setHeader("Referrer-Policy", "same-origin");
  res.setHeader("X-Content-Type-Options", "nosniff");
  if (page.retryAfter !== undefined) res.setHeader("Retry-After", String(page.retryAfter));
  if (page.refresh) res.setHeader("Refresh", `${page.refresh.seconds};url=${page.refresh.href}`);
  if (builtIn) res.setHeader("Content-Security-Policy", BUILTIN_PAGE_CSP);
}

function sendBuiltIn(res: Response, page: RouterPage): void {
  if (res.headersSent || res.destroyed) return;
  writeHead(res, page, true);
  res.end(builtInPageHtml(page));
}

/**
 * Calls the integrator's `renderPage` and waits (at most RENDER_DEADLINE_MS) for it to
 * answer: synchronously, through its promise, or later (`res.render` writes after the
 * view engine's callback). A throw, a rejection or no answer by the deadline → the
 * built-in page, logged. Never rejects.
 */
async function renderInLayout(settings: PageSettings, render: RenderPage, req: Request, res: Response, page: RouterPage): Promise<void> {
  writeHead(res, page, false);
  rendering.set(res, page);
  let onAnswered = (): void => {};
  const answered = new Promise<void>((resolve) => { onAnswered = resolve; });
  res.once("finish", onAnswered);
  res.once("close", onAnswered);
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<"deadline">((resolve) => {
    timer = setTimeout(() => resolve("deadline"), RENDER_DEADLINE_MS);
    timer.unref();
  });
  let failure: string | undefined;
  try {
    const result = render(req, res, { ...page, links: page.links.map((l) => ({ ...l })) });
    if (result && typeof (result as Promise<void>).then === "function") await Promise.race([result, deadline]);
    if (!res.headersSent && !res.destroyed && (await Promise.race([answered, deadline])) === "deadline" && !res.headersSent) {
      failure = `did not answer within ${RENDER_DEADLINE_MS} ms`;
    }
  } catch (error) {
    failure = (error as Error)?.message ?? String(error);
  } finally {
    clearTimeout(timer);
    res.off("finish", onAnswered);
    res.off("close", onAnswered);
  }
  // Already answered by the last resort (an error `res.render` passed to `next`).
  if (!rendering.has(res)) return;
  rendering.delete(res);
  if (failure === undefined) return;
  settings.logger.error({ event: "render_page_failed", kind: page.kind, status: page.status, error: failure }, "renderPage failed; the built-in page was sent");
  sendBuiltIn(res, page);
}
