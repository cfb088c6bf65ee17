/* global confirm */
/**
 * The dashboard's Edit, Rename and Delete: a course, a class or an exam changed in place
 * (a name, and for a class its mode) or deleted after confirming; `reload` then lists
 * everything again.
 */
import { api, h } from "./common.js";
import { clearMessages, onSubmit, setBusy, text, withoutEmpty } from "./forms.js";

const API = "/oral";

/** The API path of a class, an assessment or a role-play. */
function recordUrl(record) {
  if (record.kind === "roleplay") return `${API}/roleplays/${encodeURIComponent(record._id)}`;
  if (record.courseId && record.assessments) return `${API}/courses/${encodeURIComponent(record.courseId)}/classes/${encodeURIComponent(record._id)}`;
  return `${API}/oral-assessments/${encodeURIComponent(record._id)}`;
}

/** Edit and Delete buttons for a class or an exam: a name (and for a class its mode) changed in place. */
export function recordActions(record, what, reload) {
  const container = h("div", { class: "actions" });
  const head = container;
  container.append(
    h("button", { type: "button", class: "secondary small", "data-action": "edit", "data-label": "Edit", onclick: () => startEdit(head, record, what, reload) }, "Edit"),
    h("button", {
      type: "button", class: "danger small", "data-action": "delete", "data-label": "Delete",
      onclick: (e) => deleteRecord(e.currentTarget, container, recordUrl(record), reload,
        `Delete the ${what} “${record.name}”? ${what === "class" ? "Its assessments go with it, and their" : "Its"} launch link${what === "class" ? "s stop" : " stops"} working.`),
    }, "Delete"),
    h("span", { class: "form-error", role: "alert" }),
  );
  return container;
}

function startEdit(head, record, what, reload) {
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
    done: () => reload(),
  });
  head.replaceWith(form);
  form.querySelector("input").select();
}

async function deleteRecord(button, container, url, reload, question) {
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
  await reload();
}

export function startRename(article, course, reload) {
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
    done: () => reload(),
  });
  head.replaceWith(form);
  form.querySelector("input").select();
}

export async function deleteCourse(button, article, course, reload) {
  if (!confirm(`Delete the course “${course.name}”? Its classes and assessments go with it, and their launch links stop working.`)) return;
  clearMessages(article);
  setBusy(button, true, "Deleting…");
  const result = await api("DELETE", `${API}/courses/${encodeURIComponent(course._id)}`);
  setBusy(button, false);
  if (!result.ok) {
    article.querySelector(".form-error").textContent = result.problem.detail || result.problem.title;
    return;
  }
  await reload();
}
