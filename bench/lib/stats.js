/** Small numeric helpers and the table printer. */

export function percentile(values, p) {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank];
}

export const median = (values) => percentile(values, 50);

export const round = (n, digits = 3) => (Number.isFinite(n) ? Number(n.toFixed(digits)) : n);

export { maxInAnyWindow } from "./windows.js";

/** Rows of [metric, value, target, met?] as an aligned text table. */
export function table(rows) {
  const head = ["metric", "value", "target", "met"];
  const cells = [head, ...rows.map((r) => [r[0], String(r[1]), r[2] ?? "", r[3] === undefined ? "" : r[3] ? "yes" : "NO"])];
  const widths = head.map((_, i) => Math.max(...cells.map((c) => c[i].length)));
  const line = (c) => c.map((v, i) => v.padEnd(widths[i])).join("  ");
  return [line(cells[0]), widths.map((w) => "-".repeat(w)).join("  "), ...cells.slice(1).map(line)].join("\n");
}

/** A new array with `values` in a random order (Fisher–Yates). */
export function shuffle(values) {
  const out = [...values];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
