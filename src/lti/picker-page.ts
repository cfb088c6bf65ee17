/**
 * The deep-linking picker's HTML: one form, one button per exam (`examId` or `roleplayId`
 * as its name, so the click sends exactly the choice), grouped by class, the LMS course's
 * linked class first. New exams are made through the instructor API (or the app's
 * dashboard on top of it); the picker names it rather than repeating its form.
 */
import type { CatalogExam } from "./catalog.js";
import { escapeHtml } from "./pages.js";

export interface PickerInput {
  action: string;
  pick: string;
  exams: readonly CatalogExam[];
  linkedClass: string | undefined;
  /** The instructor API's collection, where new oral assessments are created. */
  instructorApi: string;
}

export function pickerBody(p: PickerInput): string {
  const groups = new Map<string, CatalogExam[]>();
  for (const exam of p.exams) groups.set(exam.classId, [...(groups.get(exam.classId) ?? []), exam]);
  const sections = [...groups.values()].map((exams) => {
    const first = exams[0]!;
    const linked = first.classId === p.linkedClass ? " (this course's class)" : "";
    const buttons = exams.map((e) => `<li><button name="${e.kind === "roleplay" ? "roleplayId" : "examId"}" value="${escapeHtml(e.id)}">${escapeHtml(e.name)}</button>${e.kind === "roleplay" ? " <small>role-play</small>" : ""}</li>`).join("");
    return `<section><h2>${escapeHtml(first.className)} <small>${escapeHtml(first.courseName)}${linked}</small></h2><ul>${buttons}</ul></section>`;
  }).join("");
  return `<form method="post" action="${escapeHtml(p.action)}"><input type="hidden" name="pick" value="${escapeHtml(p.pick)}">${sections}</form>
<p id="create"><strong>Create a new oral assessment:</strong> create it with your school's dashboard (the instructor API, <code>POST ${escapeHtml(p.instructorApi)}</code>), then add content from the LMS again.</p>`;
}
