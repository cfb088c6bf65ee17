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
