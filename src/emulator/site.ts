/**
 * Which site a page request (`/exam/…`, `/`, `/sign-in`) arrived at.
 *
 * The main origin is the platform's own host: it opens every organization's exams (a
 * launch without a custom exam domain lands there). Each organization given through
 * `organizations` also has an exam host of its own (its custom domain, exam-hosts.ts),
 * which opens that organization's exams only.
 *
 * Browsers keep cookies per host name, not per port, so exam hosts on one loopback address
 * would all see one `__session` cookie. Each site therefore has its own cookie name, and a
 * session counts only on the site that started it, as it would on separate domains.
 */
import { SESSION_COOKIE } from "./sessions.js";

export interface Site {
  /** The organization whose exam host this is; undefined on the platform's own host. */
  readonly organization?: { readonly id: string; readonly name: string };
  /** The name of this site's session cookie. */
  readonly sessionCookie: string;
}

export const PLATFORM_SITE: Site = { sessionCookie: SESSION_COOKIE };

/** An organization's exam host. Its id is cookie-name safe (letters, digits, `_ . -`). */
export function organizationSite(organization: { id: string; name: string }): Site {
  return { organization: { id: organization.id, name: organization.name }, sessionCookie: `${SESSION_COOKIE}_${organization.id}` };
}

/** Whether an exam of organization `org` may be opened on this site. */
export function opensExamsOf(site: Site, org: string): boolean {
  return site.organization === undefined || site.organization.id === org;
}
