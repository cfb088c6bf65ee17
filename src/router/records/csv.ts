/**
 * Launch records as CSV (RFC 4180): one header row, CRLF line ends, fields quoted when
 * they hold a comma, a quote or a line break. A field that a spreadsheet would read as a
 * formula (`=`, `+`, `-`, `@` first) is prefixed with `'`: an e-mail or id typed by a
 * student must not run in the instructor's spreadsheet.
 */
import type { LaunchRecord } from "../../store/types.js";

const COLUMNS = ["at", "kind", "examId", "outcome", "status", "servedBy", "via", "orgInternalId", "email", "instance"] as const;

function field(value: string | number | undefined): string {
  let text = value === undefined ? "" : String(value);
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export function csvHeader(): string {
  return `${COLUMNS.join(",")}\r\n`;
}

export function csvRow(r: LaunchRecord): string {
  return `${[r.at, r.kind, r.examId, r.outcome, r.status, r.servedBy, r.via, r.student.orgInternalId, r.student.email, r.instance].map(field).join(",")}\r\n`;
}
