/**
 * The one bounded reader of an LMS service's paged answers (NRPS memberships, AGS line
 * items, AGS results): the first page, then each `Link: <…>; rel="next"` (next-page.ts),
 * with the same token, until there is none. Bounded three ways, so a careless or hostile
 * LMS cannot hold the tool: at most `maxPages` pages (past them, `morePages` refuses the
 * read, since a list missing its last pages would look whole; without it the read stops
 * quietly, for a search that has a fallback), at most `maxBytes` of answers in all, and a
 * next page only on the first page's origin (the token goes with every page; another
 * origin is `unsafe_url`, and nothing is sent there).
 */
import { nextPageOn } from "../shared/next-page.js";
import type { Registration } from "../lms/registrations.js";
import { ServiceAccessError, type ServiceAccess, type ServiceAnswer } from "../lms/service-access.js";

export interface PageLimits {
  /** What the pages are, in messages ("roster", "line items", "results"). */
  what: string;
  maxPages: number;
  /** Past `maxPages` with a next page left: refuse with this message. Undefined: stop there. */
  morePages?: string;
  /** Most bytes of answers in all; undefined: only each answer's own limit (service-access.ts). */
  maxBytes?: number;
  /** The refusal past `maxBytes` (given the page it happened on). */
  tooLarge?: (page: number) => string;
}

export interface Page extends ServiceAnswer {
  /** 1 for the first page. */
  page: number;
}

/**
 * The pages of `first`, one at a time (the caller may stop early: no further page is
 * asked for). Throws ServiceAccessError: the access's own, `bad_answer` past the limits,
 * `unsafe_url` for a next page on another origin.
 */
export async function* pagesOf(access: ServiceAccess, registration: Registration, scopes: readonly string[], first: string, accept: string, limits: PageLimits): AsyncGenerator<Page> {
  const origin = new URL(first);
  let url: string | undefined = first;
  let chars = 0;
  for (let page = 1; url !== undefined; page++) {
    if (page > limits.maxPages) {
      if (limits.morePages !== undefined) throw new ServiceAccessError("bad_answer", limits.morePages);
      return;
    }
    const answer = await access.call(registration, scopes, { url, accept });
    chars += answer.chars;
    if (limits.maxBytes !== undefined && chars > limits.maxBytes) {
      throw new ServiceAccessError("bad_answer", limits.tooLarge?.(page) ?? `The LMS's ${limits.what} passed ${limits.maxBytes} bytes at page ${page}.`);
    }
    const after = nextPageOn(origin, answer.headers.link, url);
    yield { ...answer, page };
    if (typeof after === "object") {
      throw new ServiceAccessError("unsafe_url", `The LMS's ${limits.what} page ${page} names a next page on another origin (${after.foreign}); it was not followed.`);
    }
    url = after;
  }
}
