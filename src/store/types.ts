/**
 * What the router remembers about records it created, so that a launch can find an
 * exam's class (and course) without asking the platform, and the dashboard can list
 * classes and assessments (the platform has no list endpoints for them).
 *
 * One async interface for every backend (memory, SQLite, PostgreSQL). Records keep the
 * platform's whole response in `data`, unknown fields included.
 */
export interface CourseRecord {
  id: string;
  name: string;
  data: Record<string, unknown>;
  createdAt: string;
}

export interface ClassRecord {
  id: string;
  courseId: string;
  name: string;
  data: Record<string, unknown>;
  createdAt: string;
}

export interface AssessmentRecord {
  id: string;
  classId: string;
  /** Denormalised from the class, so a launch needs one lookup. */
  courseId: string | undefined;
  name: string;
  data: Record<string, unknown>;
  createdAt: string;
}

export interface OralStore {
  /** Creates or migrates the schema. Idempotent; the router calls it before first use. */
  init(): Promise<void>;

  /** Insert or replace (same id → latest wins). */
  putCourse(record: CourseRecord): Promise<void>;
  getCourse(id: string): Promise<CourseRecord | undefined>;
  listCourses(): Promise<CourseRecord[]>;
  /** Marks the course, its classes and their assessments gone: they no longer appear in gets, lists or launches. */
  deleteCourse(id: string): Promise<void>;

  putClass(record: ClassRecord): Promise<void>;
  getClass(id: string): Promise<ClassRecord | undefined>;
  /** Oldest first. */
  listClasses(courseId: string): Promise<ClassRecord[]>;

  putAssessment(record: AssessmentRecord): Promise<void>;
  getAssessment(id: string): Promise<AssessmentRecord | undefined>;
  /** Oldest first. */
  listAssessments(classId: string): Promise<AssessmentRecord[]>;

  /** Releases connections / file handles. */
  close(): Promise<void>;
}
