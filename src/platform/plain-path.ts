/**
 * A path (with its query) that `new URL` leaves exactly as it is: it starts with `/`, has
 * no dot segment (plain or percent-encoded), and no backslash, space, fragment or other
 * character a URL parser would re-encode. Appended to a base URL, such a path cannot leave
 * the base's origin or path, and the HTTP adapter can send it without parsing it.
 */
export function isPlainPath(path: string): boolean {
  return PLAIN_PATH.test(path) && !PLAIN_DOT_SEGMENT.test(path);
}
const PLAIN_PATH = /^\/[A-Za-z0-9\-_~!$&'()*+,;=:@/.%]*(?:\?[A-Za-z0-9\-._~!$&()*+,;=:@/?%]*)?$/;
const PLAIN_DOT_SEGMENT = /(?:^|\/)(?:\.|%2e){1,2}(?:\/|\?|$)/i;
