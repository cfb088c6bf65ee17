/* global Node */
/**
 * Helpers shared by the example app's pages: a tiny DOM builder (text is always set as
 * text, never parsed as HTML), and `api()`, which calls the plugin's JSON API and turns
 * RFC 9457 problem+json answers into something a form can show.
 */

/** `h("p", { class: "x" }, "text", child)`: an element; strings become text nodes. */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on") && typeof value === "function") el.addEventListener(name.slice(2), value);
    else if (name === "dataset") Object.assign(el.dataset, value);
    else el.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

/**
 * Calls the API. Resolves `{ ok: true, status, data, meta }` or
 * `{ ok: false, status, problem: { title, detail, code, errors: [{ path, message }] } }`;
 * never rejects, so callers handle one shape.
 */
export async function api(method, url, body, extraHeaders = {}) {
  const headers = { Accept: "application/json", ...extraHeaders };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  let res;
  try {
    res = await fetch(url, { method, headers, credentials: "same-origin", body: body === undefined ? undefined : JSON.stringify(body) });
  } catch {
    return { ok: false, status: 0, problem: { title: "Network error", detail: "The server could not be reached. Check your connection and try again.", errors: [] } };
  }
  if (res.status === 204) return { ok: true, status: 204 };
  const type = res.headers.get("content-type") ?? "";
  const payload = type.includes("json") ? await res.json().catch(() => undefined) : undefined;
  if (res.ok) return { ok: true, status: res.status, data: payload?.data, meta: payload?.meta };
  if (res.status === 401) {
    return { ok: false, status: 401, problem: { title: "Signed out", detail: "Your session has ended. Log in again.", code: "unauthenticated", errors: [] }, signedOut: true };
  }
  const problem = payload && typeof payload === "object" && typeof payload.title === "string"
    ? { ...payload, errors: Array.isArray(payload.errors) ? payload.errors : [] }
    : { title: `Request failed (${res.status})`, detail: res.statusText || "The server answered with an error.", errors: [] };
  return { ok: false, status: res.status, problem };
}

/** The signed-in user, or a redirect to the login page. */
export async function whoAmI() {
  const me = await api("GET", "/app/me");
  if (!me.ok) {
    window.location.assign(`/login?returnTo=${encodeURIComponent(window.location.pathname)}`);
    return undefined;
  }
  const slot = document.getElementById("me");
  if (slot) slot.textContent = `${me.data.name} (${me.data.role})`;
  // Which school the page acts for: each school's courses and exams are its own.
  const school = document.getElementById("school");
  if (school && me.data.school) {
    school.textContent = me.data.school.name;
    document.title = `${me.data.school.name} · ${document.title}`;
  }
  return me.data;
}

export function formatDuration(seconds) {
  if (typeof seconds !== "number") return "";
  const minutes = Math.round(seconds / 60);
  return minutes >= 1 ? `${minutes} min` : `${seconds} s`;
}

export function formatDate(iso) {
  if (typeof iso !== "string") return "";
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toISOString().slice(0, 10);
}
