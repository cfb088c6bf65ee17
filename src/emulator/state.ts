/**
 * The emulator's records for one environment: courses, classes, oral assessments,
 * role-plays and enrolled students. The emulator keeps one `EmulatorState` per
 * environment (`dev`, `prod`), as the platform keeps test and live data apart: a key only
 * ever reaches its own environment's records.
 *
 * Deletes cascade: a course takes its classes with it, a class its exams and roster.
 */
import { randomBytes } from "node:crypto";
import type { StudentIdentity } from "../platform/schemas.js";
import { newId, RecordTable, type JsonRecord, type Owned } from "./records.js";

export { newId, type JsonRecord, type Owned };

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

export class EmulatorState {
  readonly courses = new RecordTable();
  readonly classes = new RecordTable();
  readonly assessments = new RecordTable();
  readonly roleplays = new RecordTable();
  private readonly rosters = new Map<string, Roster>();
  /** One user per person of an organization, across classes (like the identity provider's user). */
  private readonly users = new Map<string, string>();

  /** Deletes the course and, with it, its classes and everything in them. */
  deleteCourse(id: string): boolean {
    if (!this.courses.delete(id)) return false;
    for (const classId of this.classes.deleteWhere((c) => c.courseId === id)) this.forgetClass(classId);
    return true;
  }

  /** Deletes the class with its oral assessments, role-plays and roster. */
  deleteClass(id: string): boolean {
    if (!this.classes.delete(id)) return false;
    this.forgetClass(id);
    return true;
  }

  private forgetClass(classId: string): void {
    this.rosters.delete(classId);
    this.assessments.deleteWhere((a) => a.classId === classId);
    this.roleplays.deleteWhere((r) => r.classId === classId);
  }

  /** The enrolled student of a class with this e-mail (case-insensitive), if any. */
  student(classId: string, email: string): StudentRecord | undefined {
    return this.rosters.get(classId)?.byEmail.get(email.trim().toLowerCase());
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

  /** Copies of every record, each tagged with its organization's id as `org`. */
  snapshot(): { courses: JsonRecord[]; classes: JsonRecord[]; assessments: JsonRecord[]; roleplays: JsonRecord[]; students: JsonRecord[] } {
    const students: JsonRecord[] = [];
    for (const [classId, roster] of this.rosters) {
      // A student belongs to its class's organization.
      const org = this.classes.get(classId)?.org;
      for (const s of roster.byInternalId.values()) students.push({ ...s, org });
    }
    return {
      courses: this.courses.snapshot(), classes: this.classes.snapshot(), assessments: this.assessments.snapshot(),
      roleplays: this.roleplays.snapshot(), students,
    };
  }

  clear(): void {
    for (const table of [this.courses, this.classes, this.assessments, this.roleplays]) table.clear();
    this.rosters.clear();
    this.users.clear();
  }
}
