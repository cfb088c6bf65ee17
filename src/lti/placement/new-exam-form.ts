/**
 * The picker's "a new class and exam for this course" form, read: every field checked
 * before anything is sent to the platform; the first bad one is named (a 400 page).
 */
import { isText } from "../../core/text.js";
import type { NewExamInput } from "./catalog.js";

const MAX_QUESTIONS = 200;

export function readNewExamForm(body: Record<string, unknown>, courseTitle: string): { input: NewExamInput } | { field: string; problem: string } {
  const text = (name: string) => (typeof body[name] === "string" ? (body[name] as string).trim() : "");
  const examName = text("examName");
  if (!isText(examName, 200)) return { field: "examName", problem: "must be 1 to 200 characters" };
  const className = text("className") || courseTitle;
  if (className.length > 200) return { field: "className", problem: "must be at most 200 characters" };
  const courseId = text("courseId");
  if (courseId.length > 128) return { field: "courseId", problem: "must be one of the listed courses" };
  const questions = text("questions").split(/\r?\n/).map((q) => q.trim()).filter((q) => q.length > 0);
  if (questions.length > MAX_QUESTIONS || questions.some((q) => q.length > 4000)) return { field: "questions", problem: `must be at most ${MAX_QUESTIONS} lines of at most 4000 characters` };
  return { input: { courseId: courseId || undefined, courseName: courseTitle.slice(0, 200), className: className.slice(0, 200), examName, questions } };
}
