/**
 * An in-process store for tests and throwaway demos: everything is lost when the process
 * exits, and two app instances do not see each other's records. It follows the same
 * contract as the database stores (test/store/store-contract.ts), down to returning
 * copies and JSON-shaped `data`, so code tested against it behaves the same in production.
 */
import { ProblemList } from "../core/configuration-error.js";
import { memoryStoreSchema, readStoreOptions } from "./options.js";
import { memoryIdempotency } from "./idempotency.js";
import { lifecycle } from "./lifecycle.js";
import { memoryLaunches } from "./memory-launches.js";
import { memoryLti } from "./memory-lti.js";
import { assessmentFields, checkOrganization, checkRecord, classFields, courseFields, createdMs } from "./records.js";
import type { AssessmentRecord, ClassRecord, CourseRecord, OralStoreWithLti } from "./types.js";

interface Row<R> {
  /** Stored through the *Fields helpers: own fields only, `data` as JSON gives it back. */
  record: R;
  createdMs: number;
  /** ISO time the row's course was deleted; deletion is final, a later put does not undo it. */
  deletedAt?: string;
}

/** Map iteration follows first insertion, and an upsert keeps its key's place: that is the tiebreak. */
type Table<R> = Map<string, Row<R>>;

/** Callers get copies: mutating a returned record must not change what is stored. */
function copy<R extends { data: Record<string, unknown> }>(record: R): R {
  return { ...record, data: structuredClone(record.data) };
}

function found<R extends { data: Record<string, unknown> }>(table: Table<R>, id: string): R | undefined {
  const row = table.get(id);
  return row && row.deletedAt === undefined ? copy(row.record) : undefined;
}

/** Oldest first; Array#sort is stable, so equal instants keep insertion order. */
function listed<R extends { data: Record<string, unknown> }>(table: Table<R>, keep: (record: R) => boolean): R[] {
  return [...table.values()]
    .filter((row) => row.deletedAt === undefined && keep(row.record))
    .sort((a, b) => a.createdMs - b.createdMs)
    .map((row) => copy(row.record));
}

function upsert<R extends { id: string; createdAt: string }>(table: Table<R>, record: R, deletedAt: string | undefined): void {
  const previous = table.get(record.id);
  const row: Row<R> = { record, createdMs: createdMs(record.createdAt) };
  const gone = previous?.deletedAt ?? deletedAt;
  if (gone !== undefined) row.deletedAt = gone;
  table.set(record.id, row);
}

/** Deletion is final: the first instant a row was marked gone is kept. */
function mark<R>(row: Row<R> | undefined, now: string): void {
  if (row && row.deletedAt === undefined) row.deletedAt = now;
}

/** One organization's records: every lookup starts by choosing these, so no lookup crosses organizations. */
interface Tables {
  courses: Table<CourseRecord>;
  classes: Table<ClassRecord>;
  assessments: Table<AssessmentRecord>;
}

const EMPTY: Tables = { courses: new Map(), classes: new Map(), assessments: new Map() };

export interface MemoryStoreOptions {
  /**
   * The most launch records kept per organization; past it the oldest are dropped, so
   * memory stays bounded however long the process runs. Default 10 000.
   */
  maxLaunchRecords?: number;
}

export function memoryStore(options: MemoryStoreOptions = {}): OralStoreWithLti {
  const problems = new ProblemList();
  // Read like the other stores: a misspelt option is a problem, not silently ignored.
  const { maxLaunchRecords } = readStoreOptions(problems, options, memoryStoreSchema);
  problems.throwIfAny("memoryStore");
  const organizations = new Map<string, Tables>();
  const state = lifecycle("memoryStore", async () => undefined, () => undefined);
  /** Reads never create an organization's tables (a lookup under an unknown organization holds no memory); writes do. */
  const tables = async (org: string, write = false): Promise<Tables> => {
    checkOrganization(org);
    await state.ready();
    let found = organizations.get(org);
    if (!found && write) {
      found = { courses: new Map(), classes: new Map(), assessments: new Map() };
      organizations.set(org, found);
    }
    return found ?? EMPTY;
  };

  return {
    async init() {
      await state.ready();
    },

    async putCourse(org, record) {
      checkRecord("course", org, record);
      const { courses } = await tables(org, true);
      upsert(courses, courseFields(record), undefined);
    },
    async getCourse(org, id) {
      return found((await tables(org)).courses, id);
    },
    async listCourses(org) {
      return listed((await tables(org)).courses, () => true);
    },
    async deleteCourse(org, id) {
      const { courses, classes, assessments } = await tables(org);
      const now = new Date().toISOString();
      mark(courses.get(id), now);
      const classIds = new Set<string>();
      for (const row of classes.values()) {
        if (row.record.courseId !== id) continue;
        classIds.add(row.record.id);
        mark(row, now);
      }
      // Through the class as well: an assessment stored before its class has no courseId.
      for (const row of assessments.values()) {
        if (row.record.courseId === id || classIds.has(row.record.classId)) mark(row, now);
      }
    },

    async putClass(org, record) {
      checkRecord("class", org, record);
      const { courses, classes } = await tables(org, true);
      // A class written after its course was deleted (a request racing the DELETE) is born gone.
      upsert(classes, classFields(record), courses.get(record.courseId)?.deletedAt);
    },
    async getClass(org, id) {
      return found((await tables(org)).classes, id);
    },
    async listClasses(org, courseId) {
      return listed((await tables(org)).classes, (record) => record.courseId === courseId);
    },
    async deleteClass(org, id) {
      const { classes, assessments } = await tables(org);
      const now = new Date().toISOString();
      mark(classes.get(id), now);
      for (const row of assessments.values()) if (row.record.classId === id) mark(row, now);
    },

    async putAssessment(org, record) {
      checkRecord("assessment", org, record);
      const { courses, classes, assessments } = await tables(org, true);
      const parent = classes.get(record.classId);
      // Denormalise now, so a launch reads one record instead of two.
      const courseId = record.courseId ?? parent?.record.courseId;
      const deletedAt = parent?.deletedAt ?? (courseId === undefined ? undefined : courses.get(courseId)?.deletedAt);
      upsert(assessments, assessmentFields({ ...record, courseId }), deletedAt);
    },
    async getAssessment(org, id) {
      return found((await tables(org)).assessments, id);
    },
    async listAssessments(org, classId, kind = "oral") {
      return listed((await tables(org)).assessments, (record) => record.classId === classId && record.kind === kind);
    },
    async deleteAssessment(org, id) {
      mark((await tables(org)).assessments.get(id), new Date().toISOString());
    },

    ...memoryIdempotency(() => state.ready()),
    ...memoryLaunches(() => state.ready(), maxLaunchRecords),
    ...memoryLti(() => state.ready()),

    close: () => state.close(),
  };
}
