/**
 * The next page of an LTI service's paged answer (NRPS memberships, AGS line items): the
 * `rel="next"` target of its Link header. The tool's bearer token goes with every page,
 * so a next page is followed only on the first page's origin.
 */

/** The `rel="next"` target of a Link header (RFC 8288), resolved against the page's URL. */
export function nextLink(header: string | undefined, base: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(/,(?=\s*<)/)) {
    const m = /^\s*<([^>]*)>\s*;(.*)$/.exec(part);
    if (!m) continue;
    const rel = /(?:^|;)\s*rel\s*=\s*"?([^";]+)"?/i.exec(m[2]!)?.[1];
    if (rel && rel.toLowerCase().split(/\s+/).includes("next") && URL.canParse(m[1]!, base)) return new URL(m[1]!, base).href;
  }
  return undefined;
}

/**
 * The next page after `page` (a URL on `first`'s origin), or undefined when there is none.
 * A next page on another origin is `{ foreign }`: the caller refuses the answer rather than
 * send the token there.
 */
export function nextPageOn(first: URL, header: string | undefined, page: string): string | { foreign: string } | undefined {
  const next = nextLink(header, page);
  if (next === undefined) return undefined;
  const origin = new URL(next).origin;
  return origin === first.origin ? next : { foreign: origin };
}
