/** `/courses` and `/courses/:courseId/classes[/:classId]`. */
import { ENDPOINTS } from "../../platform/endpoints.js";
import type { JsonRecord } from "../state.js";
import { ApiFailure, ownRecord, param, quote, validate, withDefaults, type ApiCall, type Handler, type Handlers } from "./support.js";

/** The reference's default class mode (a pending change says `hybrid`; the seed's example shows `online`). */
export const DEFAULT_CLASS_MODE = "in-person";

const course = (call: ApiCall): JsonRecord =>
  ownRecord(call.state.courses.get(param(call)), call.org, "Course", param(call));

/** The class in the path; a class of another course is "not found" under this one. */
function classOf(call: ApiCall): JsonRecord {
  course(call);
  const classId = param(call, 1);
  const found = call.state.classes.get(classId);
  if (found && found.record.courseId !== param(call)) {
    throw new ApiFailure(404, "not_found", `Class ${quote(classId)} was not found in this course.`);
  }
  return ownRecord(found, call.org, "Class", classId);
}

const createCourse: Handler = (call) =>
  ({ status: 201, data: call.state.courses.insert(call.org, validate(ENDPOINTS.createCourse.body, call.body)) });

const listCourses: Handler = ({ state, org }) => ({ status: 200, data: state.courses.list((_, owner) => owner === org) });

const getCourse: Handler = (call) => ({ status: 200, data: course(call) });

const updateCourse: Handler = (call) => {
  course(call);
  return { status: 200, data: call.state.courses.update(param(call), validate(ENDPOINTS.updateCourse.body, call.body)) };
};

const deleteCourse: Handler = (call) => {
  course(call);
  call.state.deleteCourse(param(call));
  return { status: 204 };
};

// The course in the path is checked before the body: an unknown course is 404 whatever was sent.
const createClass: Handler = (call) => {
  course(call);
  const body = withDefaults(validate(ENDPOINTS.createClass.body, call.body), { classMode: DEFAULT_CLASS_MODE });
  return { status: 201, data: call.state.classes.insert(call.org, body, { courseId: param(call) }) };
};

const listClasses: Handler = (call) => {
  course(call);
  return { status: 200, data: call.state.classes.list((c) => c.courseId === param(call)) };
};

const getClass: Handler = (call) => ({ status: 200, data: classOf(call) });

const updateClass: Handler = (call) => {
  const current = classOf(call);
  const changes = validate(ENDPOINTS.updateClass.body, call.body);
  // The order of the dates is checked against the stored one when only one date changes.
  const start = changes.startDate ?? current.startDate;
  const end = changes.endDate ?? current.endDate;
  if (typeof start === "string" && typeof end === "string" && end < start) {
    const field = changes.endDate !== undefined ? "endDate" : "startDate";
    throw new ApiFailure(400, "validation_error", `${field}: endDate must not be before startDate`, field);
  }
  return { status: 200, data: call.state.classes.update(param(call, 1), changes, { courseId: param(call) }) };
};

const deleteClass: Handler = (call) => {
  classOf(call);
  call.state.deleteClass(param(call, 1));
  return { status: 204 };
};

export const courseHandlers = {
  createCourse, listCourses, retrieveCourse: getCourse, updateCourse, deleteCourse,
  createClass, listClasses, retrieveClass: getClass, updateClass, deleteClass,
} satisfies Handlers;
