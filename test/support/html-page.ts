/**
 * Reads an HTML page the way a browser would (parse5, the WHATWG parsing algorithm), so
 * tests assert on what the page shows and links to, not on how its markup is spelled:
 * an escaped `&quot;` and a raw `"` in the same attribute read the same, and injected
 * markup shows up as an element, not as text.
 */
import { parse } from "parse5";

interface Node {
  nodeName: string;
  tagName?: string;
  value?: string;
  attrs?: { name: string; value: string }[];
  childNodes?: Node[];
  content?: Node;
}

export interface HtmlPage {
  title: string;
  /** Text of the `<h1>`s, `<p>`s, in order. */
  headings: string[];
  paragraphs: string[];
  links: { href: string; text: string }[];
  /** Every element's tag name, in document order. */
  tags: string[];
  /** The text inside each `<style>`. */
  styles: string[];
  /** `<meta http-equiv="refresh">` content, if any. */
  metaRefresh: string | undefined;
  attr(tag: string, name: string): string[];
}

function walk(node: Node, visit: (n: Node) => void): void {
  visit(node);
  for (const child of node.childNodes ?? []) walk(child, visit);
  if (node.content) walk(node.content, visit);
}

function textOf(node: Node): string {
  let text = "";
  walk(node, (n) => { if (n.nodeName === "#text") text += n.value ?? ""; });
  return text;
}

const attrOf = (n: Node, name: string) => n.attrs?.find((a) => a.name === name)?.value;

/**
 * Where a page's `<meta http-equiv="refresh" content="N;url=…">` sends a browser, and
 * after how many seconds; undefined without one. Read as a browser reads it (entities
 * decoded), so every test that follows a waiting page follows the same URL.
 */
export function metaRefresh(html: string): { delayS: number; url: string } | undefined {
  const content = readHtml(html).metaRefresh;
  const m = content === undefined ? null : /^(\d+)\s*;\s*url=(.+)$/i.exec(content);
  return m ? { delayS: Number(m[1]), url: m[2]! } : undefined;
}

export function readHtml(html: string): HtmlPage {
  const doc = parse(html) as unknown as Node;
  const elements: Node[] = [];
  walk(doc, (n) => { if (n.tagName) elements.push(n); });
  const all = (tag: string) => elements.filter((e) => e.tagName === tag);
  const refresh = all("meta").find((m) => attrOf(m, "http-equiv")?.toLowerCase() === "refresh");
  return {
    title: all("title").map(textOf).join(""),
    headings: all("h1").map(textOf),
    paragraphs: all("p").map(textOf),
    links: all("a").map((a) => ({ href: attrOf(a, "href") ?? "", text: textOf(a) })),
    tags: elements.map((e) => e.tagName!),
    styles: all("style").map(textOf),
    metaRefresh: refresh ? attrOf(refresh, "content") : undefined,
    attr: (tag, name) => all(tag).map((e) => attrOf(e, name)).filter((v): v is string => v !== undefined),
  };
}
