/* global Event */
/**
 * The dashboard's four create forms (course, class, oral assessment, role-play), each
 * sent to the plugin's JSON API, and the role-play's live character counts.
 */
import { onSubmit, text, withoutEmpty } from "./forms.js";
import { loadTree } from "./dashboard-tree.js";

const API = "/oral";

const courseForm = document.getElementById("course-form");
const classForm = document.getElementById("class-form");
const assessmentForm = document.getElementById("assessment-form");

onSubmit(courseForm, {
  request: (data) => ({ method: "POST", url: `${API}/courses`, body: { name: text(data, "name"), level: text(data, "level") || undefined } }),
  async done(course, form) {
    form.reset();
    form.querySelector(".form-status").textContent = `Created course “${course.name}”.`;
    await loadTree({ selectCourse: course._id });
  },
});

onSubmit(classForm, {
  request(data) {
    const courseId = text(data, "courseId");
    if (!courseId) return { invalid: { errors: [{ path: "courseId", message: "Choose a course (create one first)." }] } };
    return {
      method: "POST",
      url: `${API}/courses/${encodeURIComponent(courseId)}/classes`,
      // Dates from <input type=date> are "YYYY-MM-DD": the plugin reads them as UTC midnight.
      body: withoutEmpty({ name: text(data, "name"), classMode: text(data, "classMode"), startDate: text(data, "startDate"), endDate: text(data, "endDate") }),
    };
  },
  async done(cls, form) {
    form.querySelector("[name=name]").value = "";
    form.querySelector(".form-status").textContent = `Created class “${cls.name}”.`;
    await loadTree({ selectClass: cls._id });
  },
});

onSubmit(assessmentForm, {
  request(data) {
    const classId = text(data, "classId");
    if (!classId) return { invalid: { errors: [{ path: "classId", message: "Choose a class (create one first)." }] } };
    const durationText = text(data, "duration");
    // Blank lines are skipped, so question i is not always line i + 1: remember each one's line.
    const lines = String(data.get("questions") ?? "").split("\n").map((line, index) => ({ text: line.trim(), line: index + 1 }));
    const typed = lines.filter((q) => q.text !== "");
    const questions = typed.map((q) => ({ text: q.text }));
    return {
      // An error about "questions.3.text" is about the textarea line of the fourth question.
      lineOf: (path) => typed[Number(/^questions\.(\d+)\b/.exec(path)?.[1] ?? NaN)]?.line,
      method: "POST",
      url: `${API}/oral-assessments`,
      body: withoutEmpty({
        name: text(data, "name"),
        classId,
        // Sent as typed; the plugin says what is wrong with it (e.g. not a whole number).
        duration: durationText === "" ? undefined : Number(durationText),
        examType: text(data, "examType"),
        // None typed: left out, and the platform generates a fallback question.
        questions: questions.length > 0 ? questions : undefined,
      }),
    };
  },
  async done(assessment, form) {
    form.querySelector("[name=name]").value = "";
    form.querySelector("[name=questions]").value = "";
    form.querySelector(".form-status").textContent = `Created assessment “${assessment.name}”. Its launch link is listed below.`;
    await loadTree();
  },
});
const roleplayForm = document.getElementById("roleplay-form");
onSubmit(roleplayForm, {
  request(data) {
    const classId = text(data, "classId");
    if (!classId) return { invalid: { errors: [{ path: "classId", message: "Choose a class (create one first)." }] } };
    const durationText = text(data, "roleplayDuration");
    return {
      method: "POST",
      url: `${API}/roleplays`,
      // The scenario texts are sent as typed: the plugin checks their lengths and names the field.
      body: withoutEmpty({
        name: text(data, "name"), classId,
        roleplayStudentRole: text(data, "roleplayStudentRole"), roleplayCoralRole: text(data, "roleplayCoralRole"),
        roleplayScenario: String(data.get("roleplayScenario") ?? ""), roleplayScenarioDetails: String(data.get("roleplayScenarioDetails") ?? ""),
        roleplayDuration: durationText === "" ? undefined : Number(durationText),
      }, ["roleplayStudentRole", "roleplayCoralRole", "roleplayScenario", "roleplayScenarioDetails"]),
    };
  },
  async done(roleplay, form) {
    for (const name of ["name", "roleplayScenario", "roleplayScenarioDetails"]) form.querySelector(`[name=${name}]`).value = "";
    // Cleared by code, which fires no input event: the character counts update here.
    for (const area of form.querySelectorAll("textarea[data-min]")) area.dispatchEvent(new Event("input"));
    form.querySelector(".form-status").textContent = `Created role-play “${roleplay.name}”. Its launch link is listed below.`;
    await loadTree();
  },
});

// Live character counts next to the limits, so the 400 rarely happens.
for (const area of roleplayForm.querySelectorAll("textarea[data-min]")) {
  const count = roleplayForm.querySelector(`[data-count-for=${area.name}]`);
  const update = () => { count.textContent = `${area.value.trim().length} / ${area.dataset.min}–${area.dataset.max} characters`; };
  area.addEventListener("input", update);
  update();
}
