/**
 * Launch records as CSV (RFC 4180): one header row, CRLF line ends, fields quoted when
 * they hold a comma, a quote or a line break. A field that a spreadsheet would read as a
 * formula (`=`, `+`, `-`, `@` first) is prefixed with `'`: an e-mail or id typed by a
 * student must not run in the instructor's spreadsheet. One column per field of the
 * launch record's field table (store/launch-fields.ts), in its order.
 */
import { LAUNCH_FIELDS, valueOf } from "../../store/launch-fields.js";
import type { LaunchRecord } from "../../store/types.js";

const HEADER = `${LAUNCH_FIELDS.map((f) => f.csv).join(",")}\r\n`;

function field(value: string | number | undefined): string {
  let text = value === undefined ? "" : String(value);
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export function csvHeader(): string {
  return HEADER;
}

export function csvRow(r: LaunchRecord): string {
  return `${LAUNCH_FIELDS.map((f) => field(valueOf(r, f) as string | number | undefined)).join(",")}\r\n`;
}

/**
 * The records' rows joined into chunks of at most about `size` characters (whole rows, so
 * no character is cut in two; a row longer than `size` is a chunk of its own): each fits
 * a socket's buffer when `size` is its high-water mark.
 */
export function csvChunks(records: readonly LaunchRecord[], size: number): string[] {
  const chunks: string[] = [];
  // Rows joined once per chunk: one flat string each, not a tree of concatenations
  // (which would hold about twice the text's size while the chunk waits).
  let rows: string[] = [];
  let length = 0;
  for (const r of records) {
    const row = csvRow(r);
    if (rows.length > 0 && length + row.length > size) {
      chunks.push(rows.join(""));
      rows = [];
      length = 0;
    }
    rows.push(row);
    length += row.length;
  }
  if (rows.length > 0) chunks.push(rows.join(""));
  return chunks;
}
