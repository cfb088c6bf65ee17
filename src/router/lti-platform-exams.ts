/**
 * What an instructor creates on the platform from inside the LMS (course binding): a new
 * class (and course) with an oral exam, from the picker; a copy of an exam, settings and
 * questions, into a new class of the same course, at a copied course's first launch.
 * Both run on the organization's own client (the request's organization must be the
 * launch's) and are recorded in the store as the instructor API records them, so the
 * launch, the picker and `knownRecordsOnly` know them at once.
 */
import type { Request } from "express";
import { CatalogWriteFailed, type CatalogExam, type NewExamInput } from "../lti/placement/catalog.js";
import { OralAssessmentCreate, RoleplayCreate } from "../platform/schemas.js";
import type { PlatformClient } from "../platform/types.js";
import type { OralStore } from "../store/types.js";

export type PlatformOf = (req: Request, org: string) => Promise<PlatformClient | undefined>;

/** The fields an exam is created with, per kind: what a copy takes from the original (never its id or class). */
const CREATE_FIELDS = {
  oral: Object.keys(OralAssessmentCreate.shape).filter((k) => k !== "classId"),
  roleplay: Object.keys(RoleplayCreate.shape).filter((k) => k !== "classId"),
};

const now = () => new Date().toISOString();

async function clientFor(platformOf: PlatformOf, req: Request, org: string): Promise<PlatformClient> {
  const platform = await platformOf(req, org);
  if (!platform) throw new CatalogWriteFailed(`this request does not act for organization ${org}`, 404);
  return platform;
}

/** A platform failure as a CatalogWriteFailed: its status and class name only (never a key or a body). */
async function upstream<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof CatalogWriteFailed) throw error;
    const status = (error as { status?: unknown }).status;
    throw new CatalogWriteFailed(`the platform refused or failed (${(error as Error)?.name ?? "error"}${typeof status === "number" ? ` ${status}` : ""})`, 502);
  }
}

export function platformExams(store: OralStore, platformOf: PlatformOf) {
  async function newClass(platform: PlatformClient, org: string, courseId: string, name: string) {
    const created = (await upstream(() => platform.classes.create(courseId, { name }))).data;
    await store.putClass(org, { id: created._id, courseId, name: created.name, data: created, createdAt: now() });
    return created;
  }

  return {
    async create(req: Request, org: string, input: NewExamInput): Promise<CatalogExam> {
      const platform = await clientFor(platformOf, req, org);
      let course = input.courseId === undefined ? undefined : await store.getCourse(org, input.courseId);
      if (input.courseId !== undefined && !course) throw new CatalogWriteFailed(`course ${input.courseId} is not the organization's`, 400);
      if (!course) {
        const made = (await upstream(() => platform.courses.create({ name: input.courseName }))).data;
        course = { id: made._id, name: made.name, data: made, createdAt: now() };
        await store.putCourse(org, course);
      }
      const cls = await newClass(platform, org, course.id, input.className);
      const body = { name: input.examName, classId: cls._id, ...(input.questions.length > 0 ? { questions: input.questions.map((text) => ({ text })) } : {}) };
      const exam = (await upstream(() => platform.oralAssessments.create(body))).data;
      await store.putAssessment(org, { id: exam._id, kind: "oral", classId: cls._id, courseId: course.id, name: exam.name, data: exam, createdAt: now() });
      return { kind: "oral", id: exam._id, name: exam.name, classId: cls._id, className: cls.name, courseName: course.name };
    },

    async copy(req: Request, org: string, from: CatalogExam, className: string): Promise<CatalogExam> {
      const platform = await clientFor(platformOf, req, org);
      const original = await store.getClass(org, from.classId);
      if (!original) throw new CatalogWriteFailed(`class ${from.classId} is not the organization's`, 400);
      const resource = from.kind === "roleplay" ? platform.roleplays : platform.oralAssessments;
      const source = (await upstream(() => resource.retrieve(from.id))).data as Record<string, unknown>;
      const fields = Object.fromEntries(CREATE_FIELDS[from.kind].filter((k) => source[k] !== undefined && source[k] !== null).map((k) => [k, source[k]]));
      const cls = await newClass(platform, org, original.courseId, className);
      const body = { ...fields, name: from.name, classId: cls._id };
      const exam = (await upstream(() => (resource.create as (b: unknown) => Promise<{ data: { _id: string; name: string } & Record<string, unknown> }>)(body))).data;
      await store.putAssessment(org, { id: exam._id, kind: from.kind, classId: cls._id, courseId: original.courseId, name: exam.name, data: exam, createdAt: now() });
      return { kind: from.kind, id: exam._id, name: exam.name, classId: cls._id, className: cls.name, courseName: from.courseName };
    },
  };
}
