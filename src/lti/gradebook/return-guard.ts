/**
 * Which requests to `GET /lti/return` may change anything (queue `Submitted`, use up the
 * mark). The return mark is `SameSite=Lax`: a browser sends it on a top-level GET
 * navigation from any site (the exam site's redirect back, but also a link or a redirect
 * on any other page), never on a cross-site subrequest (an image, a script, a frame, a
 * `fetch`), nor on a cross-site POST. A browser without SameSite support (or a cookie
 * jar that ignores it) might send it on a subrequest too, so the route checks for itself:
 * a request the browser marks (Fetch Metadata) as coming from another site and not as a
 * top-level navigation, a prefetch or prerender, or a `HEAD`, only gets the page.
 *
 * What a cross-site top-level navigation can still do is what the exam site's redirect
 * does: queue the learner's one `Submitted` for that mark (replays queue nothing, see
 * entries.ts), a hint the page and the LMS both call "not proof".
 */
import type { Request } from "express";

/** Why a return changes nothing, or undefined when it may. */
export function returnRefusal(req: Request): "head" | "prefetch" | "cross-site-subrequest" | undefined {
  if (req.method !== "GET") return "head";
  const purpose = `${req.get("sec-purpose") ?? ""} ${req.get("purpose") ?? ""} ${req.get("x-moz") ?? ""}`.toLowerCase();
  if (/prefetch|prerender/.test(purpose)) return "prefetch";
  const site = req.get("sec-fetch-site");
  if (site === undefined || site === "same-origin" || site === "none") return undefined;
  // Another site (or a sibling subdomain): only the top-level document navigation carries the mark by design.
  const mode = req.get("sec-fetch-mode");
  const dest = req.get("sec-fetch-dest");
  if (mode === "navigate" && (dest === undefined || dest === "document")) return undefined;
  return "cross-site-subrequest";
}
