/**
 * The emulator's in-memory records: courses, classes, assessments and enrolled students.
 *
 * Records are stored as the caller sent them (after schema parsing, which keeps unknown
 * fields) plus the platform's own fields (`_id`, `createdAt`, `updatedAt`, parent ids),
 * which a caller cannot overwrite. Each record remembers its organization so that keys of
 * another organization get 403, as the vendor documents.
 */
import { randomBytes } from "node:crypto";
import type { StudentIdentity } from "../platform/schemas.js";

export type JsonRecord = Record<string, unknown>;

export interface Owned {
  org: string;
  record: JsonRecord;
}

/** A student of a class: the platform's one `StudentIdentity`, plus the ids the platform gives it. */
export interface StudentRecord extends JsonRecord, StudentIdentity {
  _id: string;
  userId: string;
  classId: string;
  createdAt: string;
}

/** Students of one class, indexed by both ways the vendor matches them. */
interface Roster {
  byEmail: Map<string, StudentRecord>;
  byInternalId: Map<string, StudentRecord>;
  count: number;
}

// Mongo-style ids (24 hex chars): 4 bytes of seconds, 5 random bytes per process, a
// 3-byte counter. Unique, sortable by creation, and cheap (no crypto call per id).
const processBytes = randomBytes(5).toString("hex");
let counter = randomBytes(3).readUIntBE(0, 3);

export function newId(): string {
  counter = (counter + 1) % 0x1000000;
  const seconds = Math.floor(Date.now() / 1000) % 0x100000000;
  return seconds.toString(16).padStart(8, "0") + processBytes + counter.toString(16).padStart(6, "0");
}

/** Platform fields go last so a body cannot set them. */
function stamp(body: JsonRecord, own: JsonRecord): JsonRecord {
  const now = new Date().toISOString();
  return { _id: own._id, ...body, ...own, createdAt: now, updatedAt: now };
}

export class EmulatorState {
  private readonly courses = new Map<string, Owned>();
  private readonly classes = new Map<string, Owned>();
  private readonly assessments = new Map<string, Owned>();
  private readonly rosters = new Map<string, Roster>();
  /** One user per person of an organization, across classes (like the identity provider's user). */
  private readonly users = new Map<string, string>();

  createCourse(org: string, body: JsonRecord): JsonRecord {
    const record = stamp(body, { _id: newId() });
    this.courses.set(record._id as string, { org, record });
    return record;
  }

  course(id: string): Owned | undefined {
    return this.courses.get(id);
  }

  listCourses(org: string): JsonRecord[] {
    const out: JsonRecord[] = [];
    for (const owned of this.courses.values()) if (owned.org === org) out.push(owned.record);
    return out;
  }

  updateCourse(id: string, changes: JsonRecord): JsonRecord | undefined {
    const owned = this.courses.get(id);
    if (!owned) return undefined;
    const { _id, createdAt } = owned.record;
    owned.record = { ...owned.record, ...changes, _id, createdAt, updatedAt: new Date().toISOString() };
    return owned.record;
  }

  /** Deletes the course and, with it, its classes, their assessments and rosters. */
  deleteCourse(id: string): boolean {
    if (!this.courses.delete(id)) return false;
    for (const [classId, owned] of this.classes) {
      if (owned.record.courseId !== id) continue;
      this.classes.delete(classId);
      this.rosters.delete(classId);
      for (const [examId, exam] of this.assessments) if (exam.record.classId === classId) this.assessments.delete(examId);
    }
    return true;
  }

  createClass(org: string, courseId: string, body: JsonRecord): JsonRecord {
    const record = stamp(body, { _id: newId(), courseId });
    this.classes.set(record._id as string, { org, record });
    return record;
  }

  class(id: string): Owned | undefined {
    return this.classes.get(id);
  }

  listClasses(courseId: string): JsonRecord[] {
    const out: JsonRecord[] = [];
    for (const owned of this.classes.values()) if (owned.record.courseId === courseId) out.push(owned.record);
    return out;
  }

  createAssessment(org: string, classRecord: JsonRecord, body: JsonRecord): JsonRecord {
    const record = stamp(body, { _id: newId(), classId: classRecord._id, courseId: classRecord.courseId });
    this.assessments.set(record._id as string, { org, record });
    return record;
  }

  assessment(id: string): Owned | undefined {
    return this.assessments.get(id);
  }

  /**
   * Finds the student in the class by e-mail (case-insensitive) or `orgInternalId`, or
   * enrols them. `"full"` when enrolling would exceed `capacity`.
   */
  enrol(
    org: string,
    classId: string,
    person: StudentIdentity,
    capacity: number,
  ): { student: StudentRecord; created: boolean } | "full" {
    let roster = this.rosters.get(classId);
    if (!roster) {
      roster = { byEmail: new Map(), byInternalId: new Map(), count: 0 };
      this.rosters.set(classId, roster);
    }
    const email = person.email.trim().toLowerCase();
    const known = roster.byEmail.get(email) ?? roster.byInternalId.get(person.orgInternalId);
    if (known) return { student: known, created: false };
    if (roster.count >= capacity) return "full";

    const userKey = `${org}\u0000${person.orgInternalId}`;
    let userId = this.users.get(userKey);
    if (!userId) this.users.set(userKey, (userId = `user_${randomBytes(12).toString("hex")}`));
    const student: StudentRecord = {
      _id: newId(), userId, classId, email: person.email, firstName: person.firstName,
      lastName: person.lastName, orgInternalId: person.orgInternalId, createdAt: new Date().toISOString(),
    };
    roster.byEmail.set(email, student);
    roster.byInternalId.set(person.orgInternalId, student);
    roster.count += 1;
    return { student, created: true };
  }

  snapshot(): { courses: JsonRecord[]; classes: JsonRecord[]; assessments: JsonRecord[]; students: JsonRecord[] } {
    const records = (map: Map<string, Owned>) => [...map.values()].map((o) => structuredClone(o.record));
    const students: JsonRecord[] = [];
    for (const roster of this.rosters.values()) for (const s of roster.byInternalId.values()) students.push({ ...s });
    return { courses: records(this.courses), classes: records(this.classes), assessments: records(this.assessments), students };
  }

  clear(): void {
    this.courses.clear();
    this.classes.clear();
    this.assessments.clear();
    this.rosters.clear();
    this.users.clear();
  }
}
