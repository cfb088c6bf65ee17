/* global EventSource, ResizeObserver */
/**
 * The dashboard's **Exam day** panel of one oral assessment, for the instructor (and the
 * IT person beside them) during and after the exam. Built on two plugin routes:
 *
 * - `GET /oral/oral-assessments/:id/live` as Server-Sent Events (a snapshot every 2 s:
 *   launched, waiting, refused, failed, pre-warmed tokens, the key's budget);
 * - `GET /oral/oral-assessments/:id/launches`, the launch record: read again whenever a
 *   snapshot changes, for the table of each student's latest outcome and the chart of
 *   launches per minute.
 *
 * The panel is a closed <details>: it connects only while open, so a dashboard listing
 * many assessments keeps no streams open. No chart library: the chart is a small inline
 * SVG (presentation attributes only, which the page's CSP allows; no style attributes).
 */
import { api, h } from "./common.js";

const API = "/oral";
/** Minutes shown on the chart, the current one last. */
const CHART_MINUTES = 15;
/** The launch record rows read for the table and chart (the newest). */
const RECORD_LIMIT = 1000;

/** What each outcome means to an instructor, and its tone in the table. */
const OUTCOMES = {
  redirected: ["Reached the exam", "ok"],
  waiting: ["Waiting for a sign-in token", "wait"],
  forbidden: ["Refused: not on the class roster", "refused"],
  launch_limited: ["Refused: too many launches in a row", "refused"],
  failure_backoff: ["Refused: retrying too soon after a failure", "refused"],
  wait_refused: ["Refused: another account's waiting page", "refused"],
  class_full: ["Failed: the class is full", "failed"],
  platform_failed: ["Failed: the platform answered an error", "failed"],
  platform_timeout: ["Failed: the platform did not answer in time", "failed"],
  platform_busy: ["Failed: the platform is rate limiting the key", "failed"],
  platform_unavailable: ["Failed: the platform is unavailable", "failed"],
  wait_exceeded: ["Failed: waited too long", "failed"],
  wait_unknown: ["Waiting page expired", "failed"],
  client_gone: ["Left before the answer", "wait"],
};

const COLUMNS = ["Student", "Outcome", "Last launch", "Launches", "Served by"];

const SERVED_BY = { prepared: "pre-warmed token", on_demand: "on demand", coalesced: "joined a call in flight", platform_host: "platform sign-in", none: "—" };

const SVG_NS = "http://www.w3.org/2000/svg";
/** An SVG element (the DOM builder `h` makes HTML ones). */
function svg(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [name, value] of Object.entries(attrs)) el.setAttribute(name, String(value));
  for (const child of children) el.append(typeof child === "string" ? document.createTextNode(child) : child);
  return el;
}

const time = (iso) => new Date(iso).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit" });

/** One labelled progress bar: `<label>`, `<progress>`, and the numbers in words beside it. */
function bar(id, label) {
  const progress = h("progress", { id, max: 1, value: 0 });
  const text = h("span", { class: "bar-text muted" });
  return { el: h("div", { class: "bar" }, h("label", { for: id }, label), progress, text), progress, text };
}

function tile(name, label) {
  const value = h("dd", { "data-count": name }, "–");
  return { el: h("div", { class: "tile", "data-tile": name }, h("dt", {}, label), value), value };
}

/** The panel for one oral assessment: `{ el }`, a <details> that connects when opened. */
export function examDayPanel(exam) {
  const id = exam._id;
  const base = `${API}/oral-assessments/${encodeURIComponent(id)}`;
  const tiles = {
    launched: tile("launched", "Launched"), waiting: tile("waiting", "Waiting"),
    refused: tile("refused", "Refused"), failed: tile("failed", "Failed"),
  };
  const bars = {
    prepared: bar(`prepared-${id}`, "Sign-in tokens prepared"),
    launched: bar(`launched-${id}`, "Students launched"),
    budget: bar(`budget-${id}`, "Key's rate budget in use"),
  };
  const status = h("p", { class: "live-status muted", role: "status" }, "Connecting…");
  const chartTitle = h("figcaption", { id: `chart-title-${id}` }, `Launches per minute, last ${CHART_MINUTES} minutes, against the key's budget`);
  const chart = h("div", { class: "chart" });
  const tableTitle = h("h4", { id: `record-title-${id}` }, "Launch record: each student's latest launch");
  const rows = h("tbody", { role: "rowgroup" });
  // Explicit table roles: on a phone the rows are laid out as cards (CSS display), which
  // would otherwise cost the table its semantics in some browsers.
  const table = h("table", { class: "record", role: "table" },
    h("thead", { role: "rowgroup" }, h("tr", { role: "row" }, COLUMNS.map((c) => h("th", { scope: "col", role: "columnheader" }, c)))),
    rows);
  const tableNote = h("p", { class: "muted record-note" });
  const error = h("p", { class: "form-error", role: "alert" });

  const details = h("details", { class: "exam-day", "data-exam-day": id },
    h("summary", {}, "Exam day"),
    h("div", { class: "exam-day-body" },
      status, error,
      h("dl", { class: "tiles" }, Object.values(tiles).map((t) => t.el)),
      h("div", { class: "bars" }, Object.values(bars).map((b) => b.el)),
      h("figure", { class: "chart-figure" }, chartTitle, chart),
      tableTitle,
      h("div", { class: "table-wrap", role: "region", "aria-labelledby": tableTitle.id, tabindex: 0 }, table),
      tableNote));

  let source;
  let rosterSize;
  let latest;
  let lastKey;
  let reading = false;
  let again = false;

  function showSnapshot(snapshot) {
    latest = snapshot;
    for (const [name, t] of Object.entries(tiles)) t.value.textContent = String(snapshot[name]);
    tiles.waiting.el.classList.toggle("alert", snapshot.waiting > 0);
    tiles.failed.el.classList.toggle("alert", snapshot.failed > 0);
    const { ready, planned, expiring } = snapshot.prepared;
    setBar(bars.prepared, ready, planned, planned === 0
      ? "Not prepared: each student's token is asked for at launch."
      : `${ready} of ${planned} ready${expiring > 0 ? `, ${expiring} expiring within a minute` : ""}`);
    // Out of the class roster (or the prepared roster): the refused are, mostly, not on it.
    const students = Math.max(rosterSize || planned, snapshot.launched + snapshot.waiting + snapshot.failed);
    setBar(bars.launched, snapshot.launched, students, `${snapshot.launched} of ${students} on the roster${snapshot.waiting > 0 ? `, ${snapshot.waiting} waiting` : ""}`);
    const { used, limit, platform429, platformErrors } = snapshot.budget;
    setBar(bars.budget, used, limit, `${used} of ${limit} calls in the current window · platform 429s: ${platform429} · errors: ${platformErrors} (last 5 min)`);
    status.textContent = `Live · updated ${time(new Date().toISOString())}`;
    // The record and chart are read again only when something moved.
    const key = JSON.stringify([snapshot.launched, snapshot.waiting, snapshot.refused, snapshot.failed, used]);
    if (key !== lastKey) {
      lastKey = key;
      void readRecord();
    }
  }

  function setBar(b, value, max, words) {
    b.progress.max = Math.max(1, max);
    b.progress.value = Math.min(value, Math.max(1, max));
    b.text.textContent = words;
  }

  /** Reads the launch record (one read at a time; a change meanwhile reads once more). */
  async function readRecord() {
    if (reading) { again = true; return; }
    reading = true;
    try {
      do {
        again = false;
        const page = await api("GET", `${base}/launches?limit=${RECORD_LIMIT}`);
        if (!page.ok) { error.textContent = page.problem.detail || page.problem.title; return; }
        error.textContent = "";
        showRecord(page.data, page.meta?.nextCursor != null);
      } while (again);
    } finally {
      reading = false;
    }
  }

  function showRecord(records, more) {
    // Newest first: a student's first row is their latest launch.
    const students = new Map();
    for (const r of records) {
      const key = r.student.orgInternalId;
      const seen = students.get(key);
      if (seen) seen.count += 1;
      else students.set(key, { latest: r, count: 1 });
    }
    rows.replaceChildren(...[...students.values()].map(({ latest: r, count }) => {
      const [words, tone] = OUTCOMES[r.outcome] ?? [r.outcome, "failed"];
      const cell = (column, ...content) => h("td", { role: "cell", "data-label": COLUMNS[column] }, ...content);
      return h("tr", { role: "row", "data-student": r.student.orgInternalId, "data-outcome": r.outcome },
        h("th", { scope: "row", role: "rowheader" }, r.student.email, " ", h("span", { class: "muted" }, r.student.orgInternalId)),
        cell(1, h("span", { class: `outcome ${tone}` }, words), " ", h("span", { class: "muted" }, `(${r.status})`)),
        cell(2, h("time", { datetime: r.at }, time(r.at))),
        cell(3, String(count)),
        cell(4, SERVED_BY[r.servedBy] ?? r.servedBy));
    }));
    if (students.size === 0) rows.replaceChildren(h("tr", { role: "row" }, h("td", { role: "cell", colspan: 5, class: "muted" }, "No launches yet.")));
    tableNote.textContent = more ? `From the newest ${RECORD_LIMIT} launches.` : "";
    drawChart(records);
  }

  let charted = [];
  /** Drawn at the chart's own pixel width (not scaled by a viewBox), so its text stays readable at 390 px. */
  function drawChart(records = charted) {
    charted = records;
    const minute = 60_000;
    const now = Math.floor(Date.now() / minute) * minute;
    const first = now - (CHART_MINUTES - 1) * minute;
    const counts = Array(CHART_MINUTES).fill(0);
    for (const r of records) {
      const i = Math.floor((Date.parse(r.at) - first) / minute);
      if (i >= 0 && i < CHART_MINUTES) counts[i] += 1;
    }
    const budget = latest ? Math.round((latest.budget.limit * minute) / latest.budget.windowMs) : 0;
    const top = Math.max(1, budget, ...counts) * 1.15;
    const width = Math.max(240, chart.clientWidth || 600);
    const [height, left, bottom, right, topPad] = [150, 30, 20, 4, 8];
    const plot = height - bottom - topPad;
    const step = (width - left - right) / CHART_MINUTES;
    const y = (v) => topPad + plot - (v / top) * plot;
    const desc = `${counts.reduce((a, b) => a + b, 0)} launches in the last ${CHART_MINUTES} minutes, at most ${Math.max(...counts)} in one minute; the key's budget is ${budget} calls a minute.`;
    const label = (x, yy, text, anchor = "start", fill = "#59636e") => svg("text", { x, y: yy, "text-anchor": anchor, "font-size": 12, fill }, text);
    const graphic = svg("svg", { width, height, viewBox: `0 0 ${width} ${height}`, role: "img", "aria-labelledby": `chart-title-${id} chart-desc-${id}`, class: "chart-svg" },
      svg("desc", { id: `chart-desc-${id}` }, desc),
      svg("line", { x1: left, x2: width - right, y1: y(0), y2: y(0), stroke: "#d1d9e0" }),
      ...counts.map((n, i) => svg("rect", {
        x: left + i * step + 1, width: Math.max(1, step - 2), y: y(n), height: Math.max(n > 0 ? 2 : 0, y(0) - y(n)), fill: "#0b5cad", "data-minute": i, "data-count": n,
      })),
      ...counts.flatMap((n, i) => (n > 0 ? [label(left + i * step + step / 2, y(n) - 4, String(n), "middle", "#1f2328")] : [])),
      svg("line", { x1: left, x2: width - right, y1: y(budget), y2: y(budget), stroke: "#b42318", "stroke-dasharray": "5 4", "stroke-width": 1.5, "data-budget": budget }),
      label(width - right, y(budget) - 5, `budget ${budget} a minute`, "end", "#b42318"),
      label(left - 5, y(0) + 4, "0", "end"),
      label(left - 5, y(budget) + 4, String(budget), "end"),
      label(left, height - 4, `${CHART_MINUTES - 1} min ago`),
      label(width - right, height - 4, "now", "end"));
    chart.replaceChildren(graphic);
  }
  // The chart follows the panel's width (a rotated phone, a resized window).
  new ResizeObserver(() => { if (details.open && latest) drawChart(); }).observe(chart);

  async function open() {
    if (rosterSize === undefined) {
      const roster = await api("GET", "/app/roster");
      rosterSize = roster.ok ? roster.data.everyClass.length : 0;
    }
    if (!details.open || source) return;
    // EventSource reconnects by itself after a dropped connection (the retry is the browser's).
    source = new EventSource(`${base}/live`);
    source.addEventListener("snapshot", (event) => showSnapshot(JSON.parse(event.data)));
    source.addEventListener("unavailable", () => { status.textContent = "Live numbers unavailable for a moment (the store did not answer); retrying…"; });
    source.addEventListener("error", () => { status.textContent = "Connection lost; reconnecting…"; });
  }

  function close() {
    source?.close();
    source = undefined;
    lastKey = undefined;
  }

  details.addEventListener("toggle", () => (details.open ? void open() : close()));
  return { el: details, close };
}
