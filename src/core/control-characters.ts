/**
 * Control characters in text that came from outside (an LMS's registration answer, an
 * option): C0 and C1 controls, DEL, and the bidirectional marks, overrides and isolates.
 * A terminal obeys the first (an escape sequence can repaint a line: a pending row shown
 * as an active one), and the last reorder what is shown around them; neither belongs in
 * an id. Ids are refused with them; anything printed for an operator is escaped.
 */

// eslint-disable-next-line no-control-regex -- matching control characters is the point.
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
// eslint-disable-next-line no-control-regex -- as above, every occurrence (and the escape's own backslash).
const ESCAPED = /[\\\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

export function hasControlCharacters(text: string): boolean {
  return CONTROL.test(text);
}

/** `text` with each control character written as `\u{…}` (and `\` as `\\`), so what is printed is what is stored. */
export function escapeControlCharacters(text: string): string {
  return text.replace(ESCAPED, (c) => (c === "\\" ? "\\\\" : `\\u{${c.codePointAt(0)!.toString(16)}}`));
}
