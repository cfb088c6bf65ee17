/**
 * The two exam kinds, oral assessments and role-plays, served the same way: created,
 * read, changed and deleted on the platform, listed per class from the platform, and
 * every one seen recorded in the store (the exam → class registry the launch reads),
 * with its kind, so its launch link works without `resolveClassId`.
 */
import type { z } from "zod";
import {
  OralAssessmentCreate, OralAssessmentUpdate, RoleplayCreate, RoleplayUpdate, type Meta,
} from "../../platform/schemas.js";
import type { ExamResource, PlatformClient, WithMeta } from "../../platform/types.js";
import type { ExamKind } from "../../store/types.js";
import { syncList, type InstructorDeps } from "./classes.js";
import { deleteThrough, now, param, parseOr400, send, type Handler } from "../shared/instructor-http.js";
import { ListCaches } from "./list-caches.js";

interface PlatformExam {
  _id: string;
  name: string;
  classId?: string | undefined;
  [field: string]: unknown;
}

interface ExamKindSpec {
  kind: ExamKind;
  /** The path parameter holding the exam's id. */
  idParam: string;
  create: z.ZodType<{ classId: string }>;
  update: z.ZodType<{ classId?: string | undefined }>;
  resource(platform: PlatformClient): ExamResource<PlatformExam, never, never>;
}

export const ORAL_ASSESSMENTS: ExamKindSpec = {
  kind: "oral", idParam: "examId",
  create: OralAssessmentCreate, update: OralAssessmentUpdate,
  resource: (platform) => platform.oralAssessments as unknown as ExamResource<PlatformExam, never, never>,
};

export const ROLEPLAYS: ExamKindSpec = {
  kind: "roleplay", idParam: "roleplayId",
  create: RoleplayCreate, update: RoleplayUpdate,
  resource: (platform) => platform.roleplays as unknown as ExamResource<PlatformExam, never, never>,
};

/** The five operations of one exam kind (the route table names them per kind: `createOralAssessment`, `createRoleplay`…). */
export interface ExamHandlers {
  create: Handler;
  list: Handler;
  get: Handler;
  update: Handler;
  remove: Handler;
  /** Drops the cached lists (a course was deleted). */
  invalidate(): void;
}

export function examHandlers(spec: ExamKindSpec, { platform, store, organizationIdOf, upstream, listCacheMs, forgetExams }: InstructorDeps): ExamHandlers {
  const resource = spec.resource(platform);
  const lists = new ListCaches<WithMeta<PlatformExam[]>>(listCacheMs);
  /** courseId is left out: the store takes it from the class when it knows the class. */
  const record = (org: string, classId: string, exam: PlatformExam, createdAt: string) =>
    store.putAssessment(org, { id: exam._id, kind: spec.kind, classId, courseId: undefined, name: exam.name, data: exam, createdAt });

  const create: Handler = async (req, res) => {
    const body = parseOr400(res, spec.create, req.body);
    if (!body) return;
    const created = await upstream(res, () => resource.create(body as never));
    if (!created) return;
    lists.invalidate();
    await record(organizationIdOf(req), body.classId, created.data, now());
    send(res, 201, created);
  };

  const list: Handler = async (req, res) => {
    const classId = param(req, res, "classId");
    if (classId === undefined) return;
    const org = organizationIdOf(req);
    const listed = await upstream(res, () => lists.get(classId, async () => {
      const page: { data: PlatformExam[]; meta: Meta | undefined } = await resource.list({ classId });
      const data = await syncList(page.data, () => store.listAssessments(org, classId, spec.kind), (e, createdAt) => record(org, classId, e, createdAt));
      return { data, meta: page.meta };
    }));
    if (listed) send(res, 200, listed);
  };

  const get: Handler = async (req, res) => {
    const id = param(req, res, spec.idParam);
    if (id === undefined) return;
    const found = await upstream(res, () => resource.retrieve(id));
    if (found) send(res, 200, found);
  };

  const update: Handler = async (req, res) => {
    const id = param(req, res, spec.idParam);
    if (id === undefined) return;
    const body = parseOr400(res, spec.update, req.body);
    if (!body) return;
    const updated = await upstream(res, () => resource.update(id, body as never));
    if (!updated) return;
    lists.invalidate();
    const org = organizationIdOf(req);
    const known = await store.getAssessment(org, id);
    const classId = body.classId ?? known?.classId ?? updated.data.classId;
    // An exam the store never saw and whose class the platform did not say: the next list records it.
    if (classId !== undefined) await record(org, classId, { ...updated.data, _id: id }, known?.createdAt ?? now());
    if (body.classId !== undefined) forgetExams();
    send(res, 200, updated);
  };

  const remove: Handler = async (req, res) => {
    const id = param(req, res, spec.idParam);
    if (id === undefined) return;
    await deleteThrough(res, () => resource.del(id), async () => {
      lists.invalidate();
      await store.deleteAssessment(organizationIdOf(req), id);
      forgetExams();
    });
  };

  return { create, list, get, update, remove, invalidate: () => lists.invalidate() };
}
