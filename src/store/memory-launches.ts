/**
 * The memory store's launch records: per organization, oldest dropped first once an
 * organization holds `maxRecords`, so a long-running demo cannot grow without end.
 */
import { checkLaunchRecord, cursorOf, pageOf } from "./launch-records.js";
import type { LaunchRecord, OralStoreLaunches } from "./launch-types.js";
import { checkOrganization } from "./records.js";

interface Row { record: LaunchRecord; atMs: number; seq: number }

export function memoryLaunches(ready: () => Promise<unknown>, maxRecords: number): OralStoreLaunches {
  const organizations = new Map<string, Row[]>();
  let seq = 0;
  return {
    async addLaunches(org, records) {
      checkOrganization(org);
      records.forEach(checkLaunchRecord);
      await ready();
      const rows = organizations.get(org) ?? organizations.set(org, []).get(org)!;
      for (const record of records) rows.push({ record: structuredClone(record), atMs: Date.parse(record.at), seq: ++seq });
      if (rows.length > maxRecords) rows.splice(0, rows.length - maxRecords);
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
      const rows = (organizations.get(org) ?? []).filter(({ record: r, atMs }) =>
        r.kind === query.kind && r.examId === query.examId && (query.since === undefined || atMs >= query.since));
      let counted: Row[] = rows;
      if (query.latestPerStudent) {
        const latest = new Map<string, Row>();
        for (const row of rows) {
          const seen = latest.get(row.record.student.orgInternalId);
          if (!seen || row.atMs > seen.atMs || (row.atMs === seen.atMs && row.seq > seen.seq)) latest.set(row.record.student.orgInternalId, row);
        }
        counted = [...latest.values()];
      }
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
        organizations.set(org, kept);
      }
      return purged;
    },
  };
}
