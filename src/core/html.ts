/**
 * HTML escaping: the one escaper of every page the package writes (the router's built-in
 * pages, the LTI pages, the emulators' pages). The five characters that can end a text
 * node or a quoted attribute value become numeric character references (`&` → `&#38;`,
 * `'` → `&#39;`), which mean the same in text and in attributes. Attribute values must be
 * quoted; a URL is escaped as any other text (it is not a place for `javascript:` checks).
 */
export function escapeHtml(value: unknown): string {
  return String(value ?? "").replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * JSON to write inside a `<script>` element (a `type="application/json"` data block, or a
 * literal in a script): `<`, `>` and `&` become `\u` escapes, so the value can neither
 * end the element (`</script>`) nor open a comment (`<!--`) that bends how it parses;
 * JSON.parse and JavaScript read the escapes back as the same characters.
 */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/[<>&]/g, (c) => `\\u00${c.charCodeAt(0).toString(16)}`);
}
