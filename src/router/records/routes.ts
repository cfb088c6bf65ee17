/**
 * The instructor's view of the launch record:
 *
 *   GET /oral-assessments/:examId/launches   → 200 { data: [record…], meta: { nextCursor } }
 *   GET /roleplays/:roleplayId/launches      (the same, for a role-play)
 *
 * Newest first; `?cursor=` (the previous page's `nextCursor`), `?student=` (an
 * `orgInternalId` or e-mail), `?outcome=`, `?limit=` (1–1000, default 100). With
 * `Accept: text/csv`, every matching record as CSV with one header row (the gradebook
 * crowd's spreadsheet), read page by page at the client's pace (see sendCsv), so a large
 * exam never sits in memory whole. A JSON answer is one page (at most 1000 records).
 * Either is an export, capped per user, organization and router (export-limits.ts).
 */
import type { Request, Response } from "express";
import { z } from "zod";
import type { ExamKind, LaunchQuery, LaunchRecord, OralStore } from "../../store/types.js";
import type { OralStoreLtiGradebook } from "../../store/lti-gradebook-types.js";
import { decodeCursor } from "../../store/launch-records.js";
import { LAUNCH_FIELDS, setValue, valueOf } from "../../store/launch-fields.js";
import type { OrganizationIdOf } from "../shared/request-organization.js";
import { param, parseOr400, type Handler } from "../shared/instructor-http.js";
import { privateAnswerHeaders, sendJson } from "../shared/json-answer.js";
import type { LaunchRecorder } from "./recorder.js";
import { csvChunks, csvHeader } from "./csv.js";
import { writeAllAtClientPace, writeAtClientPace } from "./backpressure.js";
import { ExportLimits } from "./export-limits.js";
import { launchExportsSchema } from "./settings.js";
import { defaultsOf } from "../../core/option-schema.js";
import { sendProblem } from "../shared/problem.js";

const LaunchListQuery = z.object({
  cursor: z.string().refine((c) => decodeCursor(c) !== undefined, "must be the nextCursor of a previous page").optional(),
  student: z.string().min(1).max(320).optional(),
  outcome: z.string().regex(/^[a-z_]{1,40}$/, "must be an outcome name such as redirected or forbidden").optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
});

/**
 * What an answer shows of a record: never more than the store holds, in the documented
 * shape (the field table's `json` fields, in its order; an optional field only when not
 * empty). The OpenAPI schema is derived from the same table (launchRecordSchema).
 */
function shown(r: LaunchRecord) {
  const out: Record<string, unknown> = {};
  for (const field of LAUNCH_FIELDS) {
    const value = valueOf(r, field);
    if (!field.json || ("optional" in field && field.optional && !value)) continue;
    setValue(out, field, value);
  }
  return out;
}

/**
 * Records a CSV export reads at once: their text (about 55 kB) is what a client that stops
 * reading holds, at most. Smaller pages hold less but cost more store reads.
 */
const CSV_PAGE = 500;

/**
 * `exports`: the router's caps on open exports (every organization); default, the option's defaults.
 * `gradebookStore`: with LTI, where the gradebook's entries shown beside the records are read; default none.
 */
export function launchRecordHandlers(store: OralStore, recorder: LaunchRecorder | undefined, organizationIdOf: OrganizationIdOf,
  exports = new ExportLimits(defaultsOf(launchExportsSchema)), gradebookStore?: OralStoreLtiGradebook) {
  const list = (kind: ExamKind, idParam: string): Handler => async (req: Request, res: Response) => {
    const examId = param(req, res, idParam);
    if (examId === undefined) return;
    const query = parseOr400(res, LaunchListQuery, single(req.query));
    if (!query) return;
    const org = organizationIdOf(req);
    // Over a cap: 429 before anything is read. The place is held until the answer is out or the client gone.
    const place = exports.take(org, req);
    if (typeof place !== "function") return sendProblem(res, place);
    res.once("close", place);
    // This instance's launches still in the buffer are written first: the list includes them.
    await recorder?.flush();
    const base: LaunchQuery = { kind, examId, limit: query.limit, ...pick(query, ["cursor", "student", "outcome"]) };
    if (req.accepts(["application/json", "text/csv"]) === "text/csv") return sendCsv(res, store, org, { ...base, limit: CSV_PAGE }, exports.stalledMs);
    const page = await store.listLaunches(org, base);
    const gradebook = gradebookStore ? await gradebookOf(gradebookStore, org, kind, examId, page.records) : [];
    sendJson(res, 200, { data: page.records.map(shown), meta: { nextCursor: page.nextCursor ?? null, ...(gradebook.length > 0 ? { gradebook } : {}) } });
  };
  return { listExamLaunches: list("oral", "examId"), listRoleplayLaunches: list("roleplay", "roleplayId") };
}

/**
 * What the LMS gradebook was told about the page's students (LTI AGS), newest first per
 * student: each score queued, whether it was sent (and when), is still pending (with
 * its attempts and last error), or was given up; and its note's fields, what the LMS held
 * when a grade went (`unchanged`, `handGrade`). The exam's latest 1 000 entries are read.
 */
async function gradebookOf(store: OralStoreLtiGradebook, org: string, kind: ExamKind, examId: string, records: readonly LaunchRecord[]) {
  const students = new Map<string, LaunchRecord["student"]>();
  for (const r of records) students.set(r.student.email.toLowerCase(), r.student);
  if (students.size === 0) return [];
  const entries = await store.listLtiScores(org, { kind, examId, limit: 1000 });
  const by = new Map<string, { student: LaunchRecord["student"]; scores: Record<string, unknown>[] }>();
  for (const e of entries) {
    const student = students.get((e.student.email ?? "").toLowerCase()) ?? [...students.values()].find((s) => e.student.orgInternalId !== undefined && s.orgInternalId === e.student.orgInternalId);
    if (!student) continue;
    const key = student.email.toLowerCase();
    if (!by.has(key)) by.set(key, { student, scores: [] });
    const s = e.score;
    by.get(key)!.scores.push({
      activityProgress: s.activityProgress, gradingProgress: s.gradingProgress, timestamp: s.timestamp, comment: s.comment,
      ...(s.scoreGiven !== undefined ? { scoreGiven: s.scoreGiven, scoreMaximum: s.scoreMaximum } : {}),
      ...(s.submittedAt ? { submittedAt: s.submittedAt } : {}),
      lms: e.key.issuer, state: e.state, attempts: e.attempts, queuedAt: e.queuedAt,
      ...(e.sentAt ? { sentAt: e.sentAt } : {}), ...(e.lastError ? { lastError: e.lastError } : {}),
      // What the gradebook learned from the LMS (src/lti/gradebook/lms-reads.ts: unchanged, handGrade), whole.
      ...e.note,
    });
  }
  return [...by.values()];
}

/**
 * Page by page (CSV_PAGE records a read), each page written at the client's pace
 * (backpressure.ts) in chunks no larger than the socket's buffer (its high-water mark):
 * the next page is read only once the last chunk is in that buffer, and none once the
 * client went. So a client that stops reading holds at most one page's text and one
 * chunk, however large the exam; the page's records are let go as soon as they are text.
 * One that reads nothing for `stalledMs` is let go.
 */
async function sendCsv(res: Response, store: OralStore, org: string, query: LaunchQuery, stalledMs: number): Promise<void> {
  res.statusCode = 200;
  res.setHeader("Content-Type", "text/csv; charset=utf-8");
  res.setHeader("Content-Disposition", `attachment; filename="launches-${query.examId}.csv"`);
  privateAnswerHeaders(res);
  if (!(await writeAtClientPace(res, csvHeader(), stalledMs))) return;
  let cursor = query.cursor;
  do {
    const page = await csvPage(store, org, { ...query, ...(cursor === undefined ? {} : { cursor }) }, res.writableHighWaterMark);
    if (!(await writeAllAtClientPace(res, page.chunks, stalledMs))) return;
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  res.end();
}

/** One page as CSV chunks: its records are not kept past this call (so not while a chunk waits for the client). */
async function csvPage(store: OralStore, org: string, query: LaunchQuery, chunkSize: number) {
  const page = await store.listLaunches(org, query);
  return { chunks: csvChunks(page.records, chunkSize), nextCursor: page.nextCursor };
}

/** A repeated query parameter (`?student=a&student=b`) is its first value's mistake to make: the last is ignored. */
function single(query: Request["query"]): Record<string, unknown> {
  return Object.fromEntries(Object.entries(query).map(([k, v]) => [k, Array.isArray(v) ? v[0] : v]));
}

function pick<T extends object, K extends keyof T>(value: T, keys: K[]): Partial<Pick<T, K>> {
  return Object.fromEntries(keys.filter((k) => value[k] !== undefined).map((k) => [k, value[k]])) as Partial<Pick<T, K>>;
}
