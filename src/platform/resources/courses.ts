/** `courses.*`: the organization's courses (`/courses`). */
import { z } from "zod";
import { pathOf } from "../paths.js";
import { Course, CourseCreate, CourseUpdate } from "../schemas.js";
import type { PlatformClient } from "../types.js";
import type { ResourceKit } from "./kit.js";

export function coursesResource({ checked, record, remove }: ResourceKit): PlatformClient["courses"] {
  return {
    async create(body, opts) {
      const payload = checked("course", "POST", {}, CourseCreate, body);
      return record(Course, "a course", "POST", "/courses", payload, opts);
    },
    async list(opts) {
      return record(z.array(Course), "a list of courses", "GET", "/courses", undefined, opts);
    },
    async retrieve(courseId, opts) {
      checked("course id", "GET", { courseId }, undefined);
      return record(Course, "a course", "GET", pathOf`/courses/${courseId}`, undefined, opts);
    },
    async update(courseId, body, opts) {
      const payload = checked("course update", "PUT", { courseId }, CourseUpdate, body);
      return record(Course, "a course", "PUT", pathOf`/courses/${courseId}`, payload, opts);
    },
    async del(courseId, opts) {
      checked("course id", "DELETE", { courseId }, undefined);
      return remove(pathOf`/courses/${courseId}`, opts);
    },
  };
}
