/* global confirm, navigator, Event */
/**
 * The instructor dashboard: creates courses, classes, assessments and role-plays through
 * the plugin's JSON API (mounted at /oral), lists what exists on the platform, and edits
 * and deletes classes and exams. Errors come back as problem+json;
 * each `errors[].path` is shown next to the field it names, the rest above the button.
 */
import { api, formatDate, formatDuration, h, whoAmI } from "./common.js";
import { examDayPanel } from "./exam-day.js";

const API = "/oral";

const state = { courses: [], classes: new Map() /* courseId → class[] */, loadToken: 0, panels: new Map() /* examId → Exam day panel */ };

// ---------------------------------------------------------------------------------------
// Form plumbing: progress, errors
// ---------------------------------------------------------------------------------------

function setBusy(button, busy, label = "Saving…") {
  button.disabled = busy;
  button.setAttribute("aria-busy", busy ? "true" : "false");
  button.textContent = busy ? label : button.dataset.label;
}

function clearMessages(scope) {
  for (const el of scope.querySelectorAll(".field-error, .form-error, .form-status")) el.textContent = "";
  for (const el of scope.querySelectorAll("[aria-invalid]")) el.removeAttribute("aria-invalid");
}

/** "Line 2", "Lines 2 and 5", "Lines 2, 5 and 7". */
function linesLabel(lines) {
  if (lines.length === 1) return `Line ${lines[0]}`;
  return `Lines ${lines.slice(0, -1).join(", ")} and ${lines[lines.length - 1]}`;
}

/**
 * Shows a problem: each error next to the field its path names, the rest at the form.
 * `lineOf(path)` names the textarea line an error is about (the questions, one per line):
 * the same message for several lines is shown once, naming them all.
 */
function showProblem(scope, problem, lineOf = () => undefined) {
  const slots = [...scope.querySelectorAll(".field-error")];
  const unplaced = [];
  /** slot → message → the lines it is about (empty: about the whole field) */
  const placed = new Map();
  for (const { path, message } of problem.errors ?? []) {
    const field = String(path ?? "").split(".")[0];
    const slot = slots.find((s) => s.dataset.for === field);
    if (!slot) {
      unplaced.push(path && path !== "(body)" ? `${path}: ${message}` : message);
      continue;
    }
    if (!placed.has(slot)) placed.set(slot, new Map());
    const messages = placed.get(slot);
    if (!messages.has(message)) messages.set(message, []);
    const line = lineOf(String(path));
    if (line !== undefined && !messages.get(message).includes(line)) messages.get(message).push(line);
    const input = [...scope.querySelectorAll("[name]")].find((i) => i.getAttribute("name") === field);
    input?.setAttribute("aria-invalid", "true");
  }
  for (const [slot, messages] of placed) {
    slot.textContent = [...messages].map(([message, lines]) => (lines.length > 0 ? `${linesLabel(lines)}: ${message}` : message)).join(" ");
  }
  const formError = scope.querySelector(".form-error");
  if (!formError) return;
  const placedAll = (problem.errors?.length ?? 0) > 0 && unplaced.length === 0;
  const text = placedAll ? "Please correct the fields marked above." : [problem.detail || problem.title, ...unplaced].filter(Boolean).join(" ");
  formError.textContent = text;
  if (problem.signedOut) formError.append(" ", h("a", { href: `/login?returnTo=${encodeURIComponent("/dashboard")}` }, "Log in"));
}

/**
 * Wires a form: build the request, send it with progress shown, then show the outcome.
 * Each submission carries an `Idempotency-Key`: a new one per request, reused when the
 * same request is submitted again before it succeeded (a double submit, a retry after a
 * lost answer), so the server replays the first answer instead of creating twice.
 */
function onSubmit(form, { request, done }) {
  let submission; // { fingerprint, key } of the request not yet known to have succeeded
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const button = form.querySelector("button[type=submit]");
    if (button.disabled) return;
    clearMessages(form);
    const { method, url, body, invalid, lineOf } = request(new FormData(form));
    if (invalid) return showProblem(form, invalid);
    const fingerprint = JSON.stringify([method, url, body]);
    if (submission?.fingerprint !== fingerprint) submission = { fingerprint, key: globalThis.crypto.randomUUID() };
    setBusy(button, true);
    const result = await api(method, url, body, { "Idempotency-Key": submission.key });
    setBusy(button, false);
    if (!result.ok) return showProblem(form, result.problem, lineOf);
    submission = undefined;
    await done(result.data, form);
  });
}

const text = (data, name) => String(data.get(name) ?? "").trim();

/**
 * Optional fields left empty are left out: the plugin refuses `""` for an enum or a date,
 * and an omitted field takes the platform's default. Required fields (`name`, and those
 * listed in `required`) stay even when empty, so the plugin names them as it does every
 * field ("must not be empty") instead of reporting a missing value.
 */
function withoutEmpty(body, required = []) {
  const keep = new Set(["name", ...required]);
  return Object.fromEntries(Object.entries(body).filter(([key, value]) => keep.has(key) || (value !== "" && value !== undefined)));
}

// ---------------------------------------------------------------------------------------
// The three forms
// ---------------------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------------------
// The tree: courses → classes → assessments
// ---------------------------------------------------------------------------------------

const tree = document.getElementById("tree");
const treeError = document.getElementById("tree-error");
const refreshButton = document.getElementById("refresh");

refreshButton.addEventListener("click", async () => {
  setBusy(refreshButton, true, "Refreshing…");
  try { await loadTree(); } finally { setBusy(refreshButton, false); }
});

async function loadTree({ selectCourse, selectClass } = {}) {
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

/** The API path of a class, an assessment or a role-play. */
function recordUrl(record) {
  if (record.kind === "roleplay") return `${API}/roleplays/${encodeURIComponent(record._id)}`;
  if (record.courseId && record.assessments) return `${API}/courses/${encodeURIComponent(record.courseId)}/classes/${encodeURIComponent(record._id)}`;
  return `${API}/oral-assessments/${encodeURIComponent(record._id)}`;
}

/** Edit and Delete buttons for a class or an exam: a name (and for a class its mode) changed in place. */
function recordActions(record, what) {
  const container = h("div", { class: "actions" });
  const head = container;
  container.append(
    h("button", { type: "button", class: "secondary small", "data-action": "edit", "data-label": "Edit", onclick: () => startEdit(head, record, what) }, "Edit"),
    h("button", {
      type: "button", class: "danger small", "data-action": "delete", "data-label": "Delete",
      onclick: (e) => deleteRecord(e.currentTarget, container, recordUrl(record),
        `Delete the ${what} “${record.name}”? ${what === "class" ? "Its assessments go with it, and their" : "Its"} launch link${what === "class" ? "s stop" : " stops"} working.`),
    }, "Delete"),
    h("span", { class: "form-error", role: "alert" }),
  );
  return container;
}

function startEdit(head, record, what) {
  const isClass = what === "class";
  const form = h("form", { class: "rename", novalidate: true },
    h("label", { class: "visually-hidden", for: `edit-${record._id}` }, "Name"),
    h("input", { id: `edit-${record._id}`, name: "name", value: record.name, autocomplete: "off" }),
    isClass ? h("select", { name: "classMode", "aria-label": "Mode" }, ["online", "in-person", "hybrid"].map((m) =>
      h("option", { value: m, ...(record.classMode === m ? { selected: true } : {}) }, m))) : null,
    h("button", { type: "submit", class: "small", "data-label": "Save" }, "Save"),
    h("button", { type: "button", class: "secondary small", onclick: () => form.replaceWith(head) }, "Cancel"),
    h("p", { class: "field-error", "data-for": "name", role: "alert" }),
    isClass ? h("p", { class: "field-error", "data-for": "classMode", role: "alert" }) : null,
    h("p", { class: "form-error", role: "alert" }),
  );
  onSubmit(form, {
    request: (data) => ({ method: "PUT", url: recordUrl(record), body: withoutEmpty({ name: text(data, "name"), classMode: isClass ? text(data, "classMode") : undefined }) }),
    done: () => loadTree(),
  });
  head.replaceWith(form);
  form.querySelector("input").select();
}

async function deleteRecord(button, container, url, question) {
  if (!confirm(question)) return;
  const error = container.querySelector(".form-error");
  error.textContent = "";
  setBusy(button, true, "Deleting…");
  const result = await api("DELETE", url);
  setBusy(button, false);
  if (!result.ok) {
    error.textContent = result.problem.detail || result.problem.title;
    return;
  }
  await loadTree();
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
    h("button", { type: "button", class: "secondary small", "data-action": "rename", "data-label": "Rename", onclick: () => startRename(article, course) }, "Rename"),
    h("button", { type: "button", class: "danger small", "data-action": "delete", "data-label": "Delete", onclick: (e) => deleteCourse(e.currentTarget, article, course) }, "Delete"),
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
      recordActions(cls, "class")),
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
    h("div", {}, h("strong", {}, a.name), " ", h("span", { class: "muted" }, details), recordActions(a, a.kind === "roleplay" ? "role-play" : "assessment")),
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

function startRename(article, course) {
  const head = article.querySelector(".course-head");
  const form = h("form", { class: "rename", novalidate: true },
    h("label", { class: "visually-hidden", for: `rename-${course._id}` }, "New name"),
    h("input", { id: `rename-${course._id}`, name: "name", value: course.name, autocomplete: "off" }),
    h("button", { type: "submit", class: "small", "data-label": "Save" }, "Save"),
    h("button", { type: "button", class: "secondary small", onclick: () => form.replaceWith(head) }, "Cancel"),
    h("p", { class: "field-error", "data-for": "name", role: "alert" }),
    h("p", { class: "form-error", role: "alert" }),
  );
  onSubmit(form, {
    request: (data) => ({ method: "PUT", url: `${API}/courses/${encodeURIComponent(course._id)}`, body: { name: text(data, "name") } }),
    done: () => loadTree(),
  });
  head.replaceWith(form);
  form.querySelector("input").select();
}

async function deleteCourse(button, article, course) {
  if (!confirm(`Delete the course “${course.name}”? Its classes and assessments go with it, and their launch links stop working.`)) return;
  clearMessages(article);
  setBusy(button, true, "Deleting…");
  const result = await api("DELETE", `${API}/courses/${encodeURIComponent(course._id)}`);
  setBusy(button, false);
  if (!result.ok) {
    article.querySelector(".form-error").textContent = result.problem.detail || result.problem.title;
    return;
  }
  await loadTree();
}

// ---------------------------------------------------------------------------------------
// Start
// ---------------------------------------------------------------------------------------

function defaultDates() {
  const start = new Date();
  const end = new Date(start.getTime() + 90 * 86_400_000);
  classForm.querySelector("[name=startDate]").value = start.toISOString().slice(0, 10);
  classForm.querySelector("[name=endDate]").value = end.toISOString().slice(0, 10);
}

async function showRoster() {
  const note = document.getElementById("roster-note");
  const roster = await api("GET", "/app/roster");
  if (!roster.ok) { note.textContent = ""; return; }
  const names = (list) => list.map((u) => `${u.name} (${u.username})`).join(", ");
  const { everyClass, noClass } = roster.data;
  note.textContent = [
    everyClass.length > 0 ? `Roster: ${names(everyClass)} ${everyClass.length === 1 ? "is" : "are"} enrolled in every class of your school.` : "Roster: no student is enrolled yet.",
    noClass.length > 0 ? `${names(noClass)} ${noClass.length === 1 ? "is" : "are"} on no roster: opening a launch link as them shows the “not enrolled” page.` : "",
    "A student of another school who opens one of these launch links gets the “not found” page.",
  ].filter(Boolean).join(" ");
}

defaultDates();
const me = await whoAmI();
if (me) await Promise.all([showRoster(), loadTree()]);
