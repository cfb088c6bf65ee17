/** Courses: on the platform, listed from it (cached), recorded in the store as created. */
import { CourseCreate, CourseUpdate } from "../../platform/schemas.js";
import type { WithMeta } from "../../platform/types.js";
import type { InstructorDeps } from "./classes.js";
import { deleteThrough, now, param, parseOr400, send, type Handler } from "../shared/instructor-http.js";
import { ListCache } from "./list-cache.js";

/** `onDelete`: what else a deleted course takes with it (cached lists of its classes and exams). */
export function courseHandlers({ platform, store, organizationIdOf, upstream, listCacheMs, forgetExams }: InstructorDeps, onDelete: () => void): Record<"createCourse" | "listCourses" | "getCourse" | "updateCourse" | "deleteCourse", Handler> {
  const courseList = new ListCache<WithMeta<unknown[]>>(listCacheMs);

  const createCourse: Handler = async (req, res) => {
    const body = parseOr400(res, CourseCreate, req.body);
    if (!body) return;
    const created = await upstream(res, () => platform.courses.create(body));
    if (!created) return;
    courseList.invalidate();
    const c = created.data;
    await store.putCourse(organizationIdOf(req), { id: c._id, name: c.name, data: c, createdAt: now() });
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
    const org = organizationIdOf(req);
    const known = await store.getCourse(org, courseId);
    await store.putCourse(org, { id: courseId, name: updated.data.name, data: updated.data, createdAt: known?.createdAt ?? now() });
    send(res, 200, updated);
  };

  const deleteCourse: Handler = async (req, res) => {
    const courseId = param(req, res, "courseId");
    if (courseId === undefined) return;
    // Already gone upstream: forgotten here too, and the 404 reported as the platform gave it.
    await deleteThrough(res, () => platform.courses.del(courseId), async () => {
      courseList.invalidate();
      onDelete();
      await store.deleteCourse(organizationIdOf(req), courseId);
      forgetExams();
    });
  };

  return { createCourse, listCourses, getCourse, updateCourse, deleteCourse };
}
