/**
 * The instructor dashboard: creates courses, classes, assessments and role-plays through
 * the plugin's JSON API (mounted at /oral; create-forms.js), lists what exists on the
 * platform, and edits and deletes classes and exams (dashboard-tree.js, record-actions.js).
 * Errors come back as problem+json; each `errors[].path` is shown next to the field it
 * names, the rest above the button (forms.js).
 */
import { api, whoAmI } from "./common.js";
import "./create-forms.js";
import { loadTree } from "./dashboard-tree.js";

const classForm = document.getElementById("class-form");

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
