/**
 * The instructor API: courses, classes and oral assessments, created on the platform with
 * the server-held key and recorded in the store. Input is validated with the shared
 * schemas before anything is sent upstream.
 */
import express, { type Request, type Response, type Router } from "express";
import type { z } from "zod";
import { PlatformError } from "../../platform/errors.js";
import {
  ClassCreate, CourseCreate, CourseUpdate, issuesOf, OralAssessmentCreate, RecordId, type Meta,
} from "../../platform/schemas.js";
import type { PlatformClient, WithMeta } from "../../platform/types.js";
import type { OralStore } from "../../store/types.js";
import { expressPath, ROUTES } from "../../api/routes.js";
import { asyncHandler } from "../shared/guards.js";
import { idempotentPost } from "./idempotency.js";
import { ListCache } from "../instructor/list-cache.js";
import type { Logger } from "../../core/logger.js";
import { invalidInput, problemFromPlatform, sendProblem } from "../shared/problem.js";

/** The options the instructor API reads. */
export interface InstructorSettings {
  /** How long `GET /courses` answers are cached, ms; 0 disables. */
  listCacheMs: number;
  /** Largest JSON body accepted. */
  bodyLimit: number | string;
}

/** Parses with a schema; on failure answers 400 naming every field and returns undefined. */
function parseOr400<S extends z.ZodType>(res: Response, schema: S, value: unknown, prefix?: string): z.output<S> | undefined {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const errors = issuesOf(result.error).map((e) => ({ ...e, path: prefix ? (e.path === "(body)" ? prefix : `${prefix}.${e.path}`) : e.path }));
  sendProblem(res, invalidInput(errors));
  return undefined;
}

function param(req: Request, res: Response, name: string): string | undefined {
  return parseOr400(res, RecordId, req.params[name], name);
}

function send(res: Response, status: number, result: { data: unknown; meta: Meta | undefined }): void {
  const body: Record<string, unknown> = { data: result.data };
  if (result.meta?.requestId) body.meta = { requestId: result.meta.requestId };
  res.status(status).json(body);
}

const now = () => new Date().toISOString();

type Handler = (req: Request, res: Response) => Promise<void>;

export function instructorRoutes(settings: InstructorSettings, platform: PlatformClient, store: OralStore, logger: Logger): Router {
  const router = express.Router();
  const courseList = new ListCache<WithMeta<unknown[]>>(settings.listCacheMs);

  /**
   * Calls the platform and maps its failures. Creates are not tied to the browser's
   * connection: a record the platform made is recorded even if the instructor left.
   */
  async function upstream<T>(res: Response, call: () => Promise<T>): Promise<T | undefined> {
    try {
      return await call();
    } catch (error) {
      if (!(error instanceof PlatformError)) throw error;
      logger.warn({ event: "platform_error", kind: error.kind, status: error.status, code: error.code, requestId: error.requestId }, error.message);
      sendProblem(res, problemFromPlatform(error));
      return undefined;
    }
  }

  const createCourse: Handler = async (req, res) => {
    const body = parseOr400(res, CourseCreate, req.body);
    if (!body) return;
    const created = await upstream(res, () => platform.courses.create(body));
    if (!created) return;
    courseList.invalidate();
    const c = created.data;
    await store.putCourse({ id: c._id, name: c.name, data: c, createdAt: now() });
    send(res, 201, created);
  };

  const listCourses: Handler = async (_req, res) => {
    const listed = await upstream(res, () => courseList.get(() => platform.courses.list()));
    if (listed) send(res, 200, listed);
  };

  const getCourse: Handler = async (req, res) => {
    const courseId = param(req, res, "courseId");
    if (courseId === undefined) return;
    const found = await upstream(res, () => platform.courses.retrieve(courseId));
    if (found) send(res, 200, found);
  };

  const updateCourse: Handler = async (req, res) => {
    const courseId = param(req, res, "courseId");
    if (courseId === undefined) return;
    const body = parseOr400(res, CourseUpdate, req.body);
    if (!body) return;
    const updated = await upstream(res, () => platform.courses.update(courseId, body));
    if (!updated) return;
    courseList.invalidate();
    const known = await store.getCourse(courseId);
    await store.putCourse({ id: courseId, name: updated.data.name, data: updated.data, createdAt: known?.createdAt ?? now() });
    send(res, 200, updated);
  };

  const deleteCourse: Handler = async (req, res) => {
    const courseId = param(req, res, "courseId");
    if (courseId === undefined) return;
    try {
      await platform.courses.del(courseId);
    } catch (error) {
      // Already gone upstream: forget it here too, then report the 404 as the platform did.
      if (error instanceof PlatformError && error.kind === "not_found") await store.deleteCourse(courseId);
      if (!(error instanceof PlatformError)) throw error;
      courseList.invalidate();
      sendProblem(res, problemFromPlatform(error));
      return;
    }
    courseList.invalidate();
    await store.deleteCourse(courseId);
    res.status(204).end();
  };

  const createClass: Handler = async (req, res) => {
    const courseId = param(req, res, "courseId");
    if (courseId === undefined) return;
    const body = parseOr400(res, ClassCreate, req.body);
    if (!body) return;
    const created = await upstream(res, () => platform.classes.create(courseId, body));
    if (!created) return;
    const c = created.data;
    await store.putClass({ id: c._id, courseId, name: c.name, data: c, createdAt: now() });
    send(res, 201, created);
  };

  const listClasses: Handler = async (req, res) => {
    const courseId = param(req, res, "courseId");
    if (courseId === undefined) return;
    const records = await store.listClasses(courseId);
    res.status(200).json({ data: records.map((r) => r.data) });
  };

  const createOralAssessment: Handler = async (req, res) => {
    const body = parseOr400(res, OralAssessmentCreate, req.body);
    if (!body) return;
    const created = await upstream(res, () => platform.oralAssessments.create(body));
    if (!created) return;
    const a = created.data;
    const cls = await store.getClass(body.classId);
    await store.putAssessment({ id: a._id, classId: body.classId, courseId: cls?.courseId, name: a.name, data: a, createdAt: now() });
    send(res, 201, created);
  };

  const listOralAssessments: Handler = async (req, res) => {
    const classId = param(req, res, "classId");
    if (classId === undefined) return;
    const records = await store.listAssessments(classId);
    res.status(200).json({ data: records.map((r) => r.data) });
  };

  // Bound by operationId from the one route table, at the table's paths and methods.
  const idempotent = idempotentPost(store, logger);
  const handlers: Record<string, Handler> = {
    createCourse, listCourses, getCourse, updateCourse, deleteCourse, createClass, listClasses, createOralAssessment, listOralAssessments,
  };
  for (const route of ROUTES.filter((r) => r.feature === "instructor")) {
    const handler = handlers[route.operationId];
    if (!handler) throw new Error(`No instructor handler for ${route.operationId}.`);
    // Every POST of the table, whichever it is, accepts an Idempotency-Key.
    if (route.method === "post") router.post(expressPath(route.path), idempotent, asyncHandler(handler));
    else router[route.method](expressPath(route.path), asyncHandler(handler));
  }
  return router;
}
