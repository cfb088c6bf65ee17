/* global navigator */
/**
 * The dashboard's tree: courses → classes → assessments and role-plays, as listed by the
 * plugin's API, each with its launch link, its Edit/Delete, and an oral assessment's Exam
 * day panel; and the forms' course and class choices, kept in step with it.
 */
import { api, formatDate, formatDuration, h } from "./common.js";
import { examDayPanel } from "./exam-day.js";
import { setBusy, showProblem } from "./forms.js";
import { deleteCourse, recordActions, startRename } from "./record-actions.js";

const API = "/oral";

const state = { courses: [], classes: new Map() /* courseId → class[] */, loadToken: 0, panels: new Map() /* examId → Exam day panel */ };

const classForm = document.getElementById("class-form");
const assessmentForm = document.getElementById("assessment-form");
const roleplayForm = document.getElementById("roleplay-form");
const tree = document.getElementById("tree");
const treeError = document.getElementById("tree-error");
const refreshButton = document.getElementById("refresh");

refreshButton.addEventListener("click", async () => {
  setBusy(refreshButton, true, "Refreshing…");
  try { await loadTree(); } finally { setBusy(refreshButton, false); }
});

export async function loadTree({ selectCourse, selectClass } = {}) {
  const token = ++state.loadToken;
  treeError.textContent = "";
  const courses = await api("GET", `${API}/courses`);
  if (token !== state.loadToken) return;
  if (!courses.ok) {
    showProblem(tree.parentElement, courses.problem);
    return;
  }
  const withClasses = await Promise.all(courses.data.map(async (course) => {
    const classes = await api("GET", `${API}/courses/${encodeURIComponent(course._id)}/classes`);
    const list = classes.ok ? classes.data : [];
    const withAssessments = await Promise.all(list.map(async (cls) => {
      const [assessments, roleplays] = await Promise.all([
        api("GET", `${API}/classes/${encodeURIComponent(cls._id)}/oral-assessments`),
        api("GET", `${API}/classes/${encodeURIComponent(cls._id)}/roleplays`),
      ]);
      return {
        ...cls,
        courseId: course._id,
        assessments: [
          ...(assessments.ok ? assessments.data : []),
          ...(roleplays.ok ? roleplays.data.map((r) => ({ ...r, kind: "roleplay", duration: r.roleplayDuration })) : []),
        ],
        error: assessments.ok ? (roleplays.ok ? undefined : roleplays.problem) : assessments.problem,
      };
    }));
    return { ...course, classes: withAssessments, error: classes.ok ? undefined : classes.problem };
  }));
  if (token !== state.loadToken) return;
  state.courses = withClasses;
  renderSelects({ selectCourse, selectClass });
  renderTree();
}

function renderSelects({ selectCourse, selectClass }) {
  const courseSelect = classForm.querySelector("[name=courseId]");
  const previousCourse = selectCourse ?? courseSelect.value;
  courseSelect.replaceChildren(
    state.courses.length === 0 ? h("option", { value: "" }, "— create a course first —") : null,
    ...state.courses.map((c) => h("option", { value: c._id }, c.name)),
  );
  if (state.courses.some((c) => c._id === previousCourse)) courseSelect.value = previousCourse;

  const groups = state.courses.filter((c) => c.classes.length > 0);
  for (const form of [assessmentForm, roleplayForm]) {
    const classSelect = form.querySelector("[name=classId]");
    const previousClass = selectClass ?? classSelect.value;
    classSelect.replaceChildren(
      groups.length === 0 ? h("option", { value: "" }, "— create a class first —") : null,
      ...groups.map((c) => h("optgroup", { label: c.name }, c.classes.map((cls) => h("option", { value: cls._id }, cls.name)))),
    );
    if (groups.some((c) => c.classes.some((cls) => cls._id === previousClass))) classSelect.value = previousClass;
  }
}

function launchUrlOf(exam) {
  const path = exam.kind === "roleplay" ? `launch/roleplay/${encodeURIComponent(exam._id)}` : `launch/${encodeURIComponent(exam._id)}`;
  return new URL(`${API}/${path}`, window.location.origin).href;
}

function renderTree() {
  // The Exam day panels are built afresh: close the old ones' streams, reopen those that were open.
  const wasOpen = new Set([...state.panels].filter(([, panel]) => panel.el.open).map(([id]) => id));
  for (const panel of state.panels.values()) panel.close();
  state.panels.clear();
  renderCourses();
  for (const id of wasOpen) if (state.panels.has(id)) state.panels.get(id).el.open = true;
}

function renderCourses() {
  if (state.courses.length === 0) {
    tree.replaceChildren(h("p", { class: "muted" }, "No courses yet. Create one above."));
    return;
  }
  tree.replaceChildren(...state.courses.map(renderCourse));
}

function renderCourse(course) {
  const nameEl = h("h3", { class: "course-name" }, course.name, " ", course.level ? h("span", { class: "badge" }, course.level) : null);
  const actions = h("div", { class: "actions" },
    h("button", { type: "button", class: "secondary small", "data-action": "rename", "data-label": "Rename", onclick: () => startRename(article, course, loadTree) }, "Rename"),
    h("button", { type: "button", class: "danger small", "data-action": "delete", "data-label": "Delete", onclick: (e) => deleteCourse(e.currentTarget, article, course, loadTree) }, "Delete"),
  );
  const classes = course.classes.length === 0
    ? h("p", { class: "muted" }, "No classes created here yet.")
    : h("ul", { class: "classes" }, course.classes.map(renderClass));
  const article = h("article", { class: "course", "data-course-id": course._id },
    h("div", { class: "course-head" }, nameEl, actions),
    h("p", { class: "form-error", role: "alert" }),
    course.error ? h("p", { class: "form-error" }, course.error.detail || course.error.title) : null,
    classes,
  );
  return article;
}

function renderClass(cls) {
  const dates = [formatDate(cls.startDate), formatDate(cls.endDate)].filter(Boolean).join(" → ");
  const assessments = cls.assessments.length === 0
    ? h("p", { class: "muted" }, "No assessments yet.")
    : h("ul", { class: "assessments" }, cls.assessments.map(renderAssessment));
  return h("li", { class: "class", "data-class-id": cls._id },
    h("div", { class: "class-head" },
      h("strong", {}, cls.name), " ",
      cls.classMode ? h("span", { class: "badge" }, cls.classMode) : null, " ",
      dates ? h("span", { class: "muted" }, dates) : null,
      recordActions(cls, "class", loadTree)),
    cls.error ? h("p", { class: "form-error" }, cls.error.detail || cls.error.title) : null,
    assessments);
}

function renderAssessment(a) {
  const url = launchUrlOf(a);
  const copy = h("button", {
    type: "button", class: "secondary small", "data-label": "Copy",
    async onclick(e) {
      const button = e.currentTarget;
      try { await navigator.clipboard.writeText(url); button.textContent = "Copied"; } catch { input.select(); }
      setTimeout(() => { button.textContent = "Copy"; }, 1500);
    },
  }, "Copy");
  const input = h("input", { class: "launch-link", readonly: true, value: url, "aria-label": `Student launch link for ${a.name}` });
  const details = [a.kind === "roleplay" ? "role-play" : null, formatDuration(a.duration), a.examType, Array.isArray(a.questions) ? `${a.questions.length} question${a.questions.length === 1 ? "" : "s"}` : null].filter(Boolean).join(" · ");
  return h("li", { class: "assessment", "data-exam-id": a._id, "data-kind": a.kind ?? "oral" },
    h("div", {}, h("strong", {}, a.name), " ", h("span", { class: "muted" }, details), recordActions(a, a.kind === "roleplay" ? "role-play" : "assessment", loadTree)),
    h("div", { class: "launch" }, h("span", { class: "muted" }, "Student launch link:"), input, copy,
      h("a", { class: "launch-open", href: url, target: "_blank", rel: "noopener" }, "Open")),
    a.kind === "roleplay" ? null : examDay(a));
}

/** The assessment's Exam day panel (live numbers and launch record; oral assessments have a live view). */
function examDay(a) {
  const panel = examDayPanel(a);
  state.panels.set(a._id, panel);
  return panel.el;
}
