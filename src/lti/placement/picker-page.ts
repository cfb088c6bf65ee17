/**
 * The deep-linking picker's HTML: one form, one button per exam (`examId` or `roleplayId`
 * as its name, so the click sends exactly the choice), grouped by class, the classes
 * linked to this LMS course first; only what `lti.canLink` lets this instructor link is
 * listed. A second form makes a new class and oral exam for this course on the platform
 * (`create`, with `examName`, `className`, `courseId` and `questions`, one per line).
 */
import type { CatalogExam } from "./catalog.js";
import { escapeHtml } from "../../core/html.js";

export interface PickerInput {
  action: string;
  pick: string;
  exams: readonly CatalogExam[];
  /** The classes already linked to this LMS course. */
  linkedClasses: ReadonlySet<string>;
  /** How many of the school's exams are left out (their class belongs to another LMS course, or `lti.canLink` says no). */
  hidden: number;
  /** The organization's courses, where the new class may go. */
  courses: readonly { id: string; name: string }[];
  /** The LMS course's title: the new class's (and new course's) default name. */
  courseTitle: string;
}

export function pickerBody(p: PickerInput): string {
  const groups = new Map<string, CatalogExam[]>();
  for (const exam of p.exams) groups.set(exam.classId, [...(groups.get(exam.classId) ?? []), exam]);
  const sections = [...groups.values()].map((exams) => {
    const first = exams[0]!;
    const linked = p.linkedClasses.has(first.classId) ? " (this course's class)" : "";
    const buttons = exams.map((e) => `<li><button name="${e.kind === "roleplay" ? "roleplayId" : "examId"}" value="${escapeHtml(e.id)}">${escapeHtml(e.name)}</button>${e.kind === "roleplay" ? " <small>role-play</small>" : ""}</li>`).join("");
    return `<section><h2>${escapeHtml(first.className)} <small>${escapeHtml(first.courseName)}${linked}</small></h2><ul>${buttons}</ul></section>`;
  }).join("");
  const hidden = `<input type="hidden" name="pick" value="${escapeHtml(p.pick)}">`;
  const notListed = p.hidden === 0 ? "" : `<p id="not-listed">${p.hidden === 1 ? "1 exam of your school is" : `${p.hidden} exams of your school are`} not listed: `
    + "an exam's class belongs to the LMS course it was first added to (students open it only there), or your school's rules do not let you add it. "
    + "To use one here, make a new exam below.</p>";
  const options = [...p.courses.map((c) => `<option value="${escapeHtml(c.id)}">${escapeHtml(c.name)}</option>`), `<option value="">A new course: ${escapeHtml(p.courseTitle)}</option>`].join("");
  return `${notListed}<form method="post" action="${escapeHtml(p.action)}">${hidden}${sections}</form>
<form id="create" method="post" action="${escapeHtml(p.action)}">${hidden}<input type="hidden" name="create" value="1">
<h2>A new class and exam for this course</h2>
<p><label>Exam name <input name="examName" maxlength="200" required></label></p>
<p><label>Class <input name="className" maxlength="200" value="${escapeHtml(p.courseTitle)}" required></label></p>
<p><label>In course <select name="courseId">${options}</select></label></p>
<p><label>Questions, one per line (none: the exam service writes one) <textarea name="questions" rows="4"></textarea></label></p>
<p><button>Create and add</button></p></form>`;
}
