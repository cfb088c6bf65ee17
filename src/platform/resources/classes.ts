/** `classes.*`: the classes of a course (`/courses/:courseId/classes`). */
import { z } from "zod";
import { pathOf } from "../paths.js";
import { Class, ClassCreate, ClassUpdate } from "../schemas.js";
import type { PlatformClient } from "../types.js";
import type { ResourceKit } from "./kit.js";

export function classesResource(kit: ResourceKit): PlatformClient["classes"] {
  const { checked, record, remove } = kit;
  return {
    async create(courseId, body, opts) {
      const payload = checked("class", "POST", { courseId }, ClassCreate, body);
      return record(Class, "a class", "POST", pathOf`/courses/${courseId}/classes`, payload, opts);
    },
    async list(courseId, opts) {
      checked("course id", "GET", { courseId }, undefined);
      return record(z.array(Class), "a list of classes", "GET", pathOf`/courses/${courseId}/classes`, undefined, opts);
    },
    async retrieve(courseId, classId, opts) {
      checked("class ids", "GET", { courseId, classId }, undefined);
      return record(Class, "a class", "GET", pathOf`/courses/${courseId}/classes/${classId}`, undefined, opts);
    },
    async update(courseId, classId, body, opts) {
      const payload = checked("class update", "PUT", { courseId, classId }, ClassUpdate, body);
      return record(Class, "a class", "PUT", pathOf`/courses/${courseId}/classes/${classId}`, payload, opts);
    },
    async del(courseId, classId, opts) {
      checked("class ids", "DELETE", { courseId, classId }, undefined);
      return remove(pathOf`/courses/${courseId}/classes/${classId}`, opts);
    },
  };
}
