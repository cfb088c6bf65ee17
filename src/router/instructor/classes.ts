/**
 * Classes of a course: created, read, changed and deleted on the platform; listed from
 * the platform (so classes made elsewhere appear) and recorded in the store as they are
 * seen, so their exams know their course.
 */
import { ClassCreate, ClassUpdate, type Class } from "../../platform/schemas.js";
import type { PlatformClient, WithMeta } from "../../platform/types.js";
import type { OralStore } from "../../store/types.js";
import type { OrganizationIdOf } from "../shared/request-organization.js";
import { deleteThrough, now, param, parseOr400, send, type Handler, type Upstream } from "../shared/instructor-http.js";
import { ListCaches } from "./list-caches.js";

export interface InstructorDeps {
  platform: PlatformClient;
  store: OralStore;
  /** The organization whose records a request reads and writes. */
  organizationIdOf: OrganizationIdOf;
  upstream: Upstream;
  listCacheMs: number;
  /** Called after a delete: launches must stop finding what was deleted at once. */
  forgetExams: () => void;
}

/**
 * Records what a platform list showed, and returns the records the store still holds:
 * one the store marked deleted stays deleted (and hidden) even while the platform lists
 * it. Unchanged records are not written again.
 */
export async function syncList<R extends { _id: string }, S extends { id: string; createdAt: string; data: Record<string, unknown> }>(
  listed: R[], known: () => Promise<S[]>, put: (record: R, createdAt: string) => Promise<void>,
): Promise<R[]> {
  const before = new Map((await known()).map((r) => [r.id, r]));
  for (const record of listed) {
    const stored = before.get(record._id);
    if (stored && JSON.stringify(stored.data) === JSON.stringify(record)) continue;
    await put(record, stored?.createdAt ?? now());
  }
  const live = new Set((await known()).map((r) => r.id));
  return listed.filter((r) => live.has(r._id));
}

export interface HandlerGroup<Operation extends string> {
  handlers: Record<Operation, Handler>;
  /** Drops the cached lists (a course was deleted). */
  invalidate(): void;
}

export function classHandlers({ platform, store, organizationIdOf, upstream, listCacheMs, forgetExams }: InstructorDeps): HandlerGroup<"createClass" | "listClasses" | "getClass" | "updateClass" | "deleteClass"> {
  const lists = new ListCaches<WithMeta<Class[]>>(listCacheMs);
  const record = (org: string, courseId: string, c: Class, createdAt: string) =>
    store.putClass(org, { id: c._id, courseId, name: c.name, data: c, createdAt });

  const createClass: Handler = async (req, res) => {
    const courseId = param(req, res, "courseId");
    if (courseId === undefined) return;
    const body = parseOr400(res, ClassCreate, req.body);
    if (!body) return;
    const created = await upstream(res, () => platform.classes.create(courseId, body));
    if (!created) return;
    lists.invalidate();
    await record(organizationIdOf(req), courseId, created.data, now());
    send(res, 201, created);
  };

  const listClasses: Handler = async (req, res) => {
    const courseId = param(req, res, "courseId");
    if (courseId === undefined) return;
    const org = organizationIdOf(req);
    const listed = await upstream(res, () => lists.get(courseId, async () => {
      const page = await platform.classes.list(courseId);
      const data = await syncList(page.data, () => store.listClasses(org, courseId), (c, createdAt) => record(org, courseId, c, createdAt));
      return { data, meta: page.meta };
    }));
    if (listed) send(res, 200, listed);
  };

  const getClass: Handler = async (req, res) => {
    const courseId = param(req, res, "courseId");
    const classId = courseId === undefined ? undefined : param(req, res, "classId");
    if (courseId === undefined || classId === undefined) return;
    const found = await upstream(res, () => platform.classes.retrieve(courseId, classId));
    if (found) send(res, 200, found);
  };

  const updateClass: Handler = async (req, res) => {
    const courseId = param(req, res, "courseId");
    const classId = courseId === undefined ? undefined : param(req, res, "classId");
    if (courseId === undefined || classId === undefined) return;
    const body = parseOr400(res, ClassUpdate, req.body);
    if (!body) return;
    const updated = await upstream(res, () => platform.classes.update(courseId, classId, body));
    if (!updated) return;
    lists.invalidate();
    const org = organizationIdOf(req);
    const known = await store.getClass(org, classId);
    await record(org, courseId, { ...updated.data, _id: classId }, known?.createdAt ?? now());
    send(res, 200, updated);
  };

  const deleteClass: Handler = async (req, res) => {
    const courseId = param(req, res, "courseId");
    const classId = courseId === undefined ? undefined : param(req, res, "classId");
    if (courseId === undefined || classId === undefined) return;
    await deleteThrough(res, () => platform.classes.del(courseId, classId), async () => {
      lists.invalidate();
      await store.deleteClass(organizationIdOf(req), classId);
      forgetExams();
    });
  };

  return { handlers: { createClass, listClasses, getClass, updateClass, deleteClass }, invalidate: () => lists.invalidate() };
}
