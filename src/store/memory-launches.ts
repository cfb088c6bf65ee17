/**
 * The memory store's launch records: per organization, oldest dropped first once an
 * organization holds `maxRecords`, so a long-running demo cannot grow without end. Each
 * student's latest record per exam is kept beside them as they are written (what the
 * live view counts, without grouping the history), as the SQL stores keep `launch_latest`.
 */
import { checkLaunchRecord, cursorOf, pageOf } from "./launch-records.js";
import type { LaunchRecord, OralStoreLaunches } from "./launch-types.js";
import { checkOrganization } from "./records.js";

interface Row { record: LaunchRecord; atMs: number; seq: number }
/** Per exam (`kind`, exam id), each student's latest row. */
type Latest = Map<string, Map<string, Row>>;

const examOf = (kind: string, examId: string) => `${kind}\u0000${examId}`;
const later = (a: Row, b: Row) => a.atMs > b.atMs || (a.atMs === b.atMs && a.seq > b.seq);

export function memoryLaunches(ready: () => Promise<unknown>, maxRecords: number): OralStoreLaunches {
  const organizations = new Map<string, Row[]>();
  const latestOf = new Map<string, Latest>();
  let seq = 0;
  const forget = (org: string, gone: Row[]) => {
    const latest = latestOf.get(org);
    for (const row of gone) {
      const exam = latest?.get(examOf(row.record.kind, row.record.examId));
      if (exam?.get(row.record.student.orgInternalId) !== row) continue;
      exam.delete(row.record.student.orgInternalId);
      if (exam.size === 0) latest!.delete(examOf(row.record.kind, row.record.examId));
    }
  };
  return {
    async addLaunches(org, records) {
      checkOrganization(org);
      records.forEach(checkLaunchRecord);
      await ready();
      const rows = organizations.get(org) ?? organizations.set(org, []).get(org)!;
      const latest = latestOf.get(org) ?? latestOf.set(org, new Map()).get(org)!;
      for (const record of records) {
        const row = { record: structuredClone(record), atMs: Date.parse(record.at), seq: ++seq };
        rows.push(row);
        const key = examOf(record.kind, record.examId);
        const exam = latest.get(key) ?? latest.set(key, new Map()).get(key)!;
        const seen = exam.get(record.student.orgInternalId);
        if (!seen || later(row, seen)) exam.set(record.student.orgInternalId, row);
      }
      if (rows.length > maxRecords) forget(org, rows.splice(0, rows.length - maxRecords));
    },
    async listLaunches(org, query) {
      checkOrganization(org);
      const cursor = cursorOf(query);
      await ready();
      const rows = (organizations.get(org) ?? []).filter(({ record: r, atMs, seq: s }) =>
        r.kind === query.kind && r.examId === query.examId
        && (query.outcome === undefined || r.outcome === query.outcome)
        && (query.student === undefined || r.student.orgInternalId === query.student || r.student.email === query.student)
        && (cursor === undefined || atMs < cursor.atMs || (atMs === cursor.atMs && s < cursor.seq)));
      rows.sort((a, b) => b.atMs - a.atMs || b.seq - a.seq);
      return pageOf(rows.slice(0, query.limit + 1), query.limit, (r) => r, (r) => structuredClone(r.record));
    },
    async countLaunches(org, query) {
      checkOrganization(org);
      await ready();
      const since = (row: Row) => query.since === undefined || row.atMs >= query.since;
      // Latest per student: one row each, kept as records were written (a student whose
      // latest record is older than `since` has none since).
      const counted = query.latestPerStudent
        ? [...(latestOf.get(org)?.get(examOf(query.kind, query.examId))?.values() ?? [])].filter(since)
        : (organizations.get(org) ?? []).filter((row) => row.record.kind === query.kind && row.record.examId === query.examId && since(row));
      const counts: Record<string, number> = {};
      for (const { record } of counted) counts[record.outcome] = (counts[record.outcome] ?? 0) + 1;
      return counts;
    },
    async purgeLaunches(before) {
      await ready();
      let purged = 0;
      for (const [org, rows] of organizations) {
        const kept = rows.filter((r) => r.atMs >= before);
        purged += rows.length - kept.length;
        forget(org, rows.filter((r) => r.atMs < before));
        organizations.set(org, kept);
      }
      return purged;
    },
  };
}
