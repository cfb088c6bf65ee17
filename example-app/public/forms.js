/**
 * Form plumbing of the dashboard: progress on the submit button, problem+json errors shown
 * next to the field they name (the rest above the button), one Idempotency-Key per
 * submission, and the request bodies' empty optional fields left out.
 */
import { api, h } from "./common.js";


export function setBusy(button, busy, label = "Saving…") {
  button.disabled = busy;
  button.setAttribute("aria-busy", busy ? "true" : "false");
  button.textContent = busy ? label : button.dataset.label;
}

export function clearMessages(scope) {
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
export function showProblem(scope, problem, lineOf = () => undefined) {
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
export function onSubmit(form, { request, done }) {
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

export const text = (data, name) => String(data.get(name) ?? "").trim();

/**
 * Optional fields left empty are left out: the plugin refuses `""` for an enum or a date,
 * and an omitted field takes the platform's default. Required fields (`name`, and those
 * listed in `required`) stay even when empty, so the plugin names them as it does every
 * field ("must not be empty") instead of reporting a missing value.
 */
export function withoutEmpty(body, required = []) {
  const keep = new Set(["name", ...required]);
  return Object.fromEntries(Object.entries(body).filter(([key, value]) => keep.has(key) || (value !== "" && value !== undefined)));
}
