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
