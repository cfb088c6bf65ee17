/** `POST /students/sign-in-token`: find or enrol the student, issue a one-time ticket. */
import { ENDPOINTS } from "../../platform/endpoints.js";
import { ApiFailure, ownRecord, quote, validate, type Handler, type Handlers } from "./support.js";

const signInToken: Handler = async ({ ctx, state, org, body }) => {
  const input = validate(ENDPOINTS.createSignInToken.body, body);
  const classRecord = ownRecord(state.classes.get(input.classId), org, "Class", input.classId, "classId");
  if (input.courseId !== undefined && input.courseId !== classRecord.courseId) {
    throw new ApiFailure(400, "validation_error", "courseId: is not the course of this class", "courseId");
  }
  const enrolled = state.enrol(org, input.classId, input, ctx.options.classCapacity);
  if (enrolled === "full") {
    throw new ApiFailure(409, "conflict", `Class ${quote(input.classId)} is full (${ctx.options.classCapacity} students).`, "classId");
  }
  const { student, created } = enrolled;
  const token = await ctx.tickets.issue({
    studentId: student._id, classId: input.classId, name: `${student.firstName} ${student.lastName}`, email: student.email,
  });
  return { status: 200, data: { token, userId: student.userId, studentId: student._id, created } };
};

export const studentHandlers = { createSignInToken: signInToken } satisfies Handlers;
