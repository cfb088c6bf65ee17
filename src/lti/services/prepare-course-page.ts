/**
 * The pages of *Prepare this exam for the course* (prepare-course.ts): what was read from
 * the LMS, who was left out and why, the plan's progress, and the capacity plan. HTML
 * built with escapeHtml only; ids for tests and for a reader's own styling.
 */
import type { CapacityPlan } from "../shared/capacity-plan.js";
import { escapeHtml } from "../../core/html.js";
import { humanTime } from "../../core/human-time.js";
import type { RosterRead } from "./roster.js";

/** A member of the roster who was not prepared, and why. */
export interface LeftOut { userId: string; name: string; why: string }

/** The preparation's progress as these pages show it (the router's `PrepareProgress` has these fields). */
export interface ProgressView {
  startAt: string;
  issueFrom: string;
  state: string;
  roster: number;
  ready: number;
  pending: number;
  failed: number;
  handedOut: number;
  onDemand: number;
  platformCalls: number;
}

const n = (v: number) => v.toLocaleString("en-US");
const minutes = (ms: number) => `${Math.ceil(ms / 60_000)} min`;

/** What the preparation's state means for the instructor, and what (if anything) they do next. */
export function nextStep(p: ProgressView): string {
  switch (p.state) {
    case "scheduled": return `Nothing to do now: sign-ins are prepared from ${humanTime(p.issueFrom)}. Students open the exam from the course as usual.`;
    case "issuing": return "Sign-ins are being prepared. Refresh to follow; students can already open the exam.";
    case "ready": return "Every prepared sign-in is ready. Students open the exam from the course at the start.";
    case "finished": return "The exam has started: sign-ins not used by now are no longer kept. Students who open it now are signed in when they do.";
    default: return `Preparation: ${p.state}.`;
  }
}

const STATE_WORDS: Record<string, string> = { scheduled: "Scheduled", issuing: "Preparing sign-ins", ready: "Ready", finished: "Finished" };

export function progressPage(p: ProgressView): string {
  const rows: [string, string, string][] = [
    ["state", "Preparation", STATE_WORDS[p.state] ?? p.state], ["start", "Exam starts", humanTime(p.startAt)], ["issue-from", "Preparing from", humanTime(p.issueFrom)],
    ["roster", "Learners prepared", n(p.roster)], ["ready", "Sign-ins ready now", n(p.ready)], ["pending", "Not ready yet", n(p.pending)],
    ["failed", "Refused by the exam service", n(p.failed)], ["handed-out", "Used at launch", n(p.handedOut)], ["on-demand", "Signed in on demand", n(p.onDemand)],
  ];
  return `<dl id="progress">${rows.map(([id, label, value]) => `<dt>${label}</dt><dd id="p-${id}">${escapeHtml(value)}</dd>`).join("")}</dl>`;
}

export function capacitySection(plan: CapacityPlan): string {
  return `<h2>Capacity plan</h2><dl id="capacity">`
    + `<dt>Learners</dt><dd id="c-students">${n(plan.students)}</dd>`
    + `<dt>Sign-ins the API key allows</dt><dd id="c-rate">${n(plan.ratePerMinute)} a minute</dd>`
    + `<dt>Ready at once (one key, 10-minute sign-ins)</dt><dd id="c-ready">${n(plan.readyAtOnce)}</dd>`
    + `<dt>Signed in on demand if all arrive at the start</dt><dd id="c-on-demand">${n(plan.onDemand)}</dd>`
    + `<dt>Last learner can start</dt><dd id="c-last">${plan.onDemand === 0 ? "at the start" : `about ${minutes(plan.lastStartAfterMs)} after the start`}</dd></dl>`
    + (plan.advice.length ? `<ul id="c-advice">${plan.advice.map((a) => `<li>${escapeHtml(a)}</li>`).join("")}</ul>` : "");
}

export function coursePreparedPage(input: { read: RosterRead; leftOut: LeftOut[]; leftOutCount: number; progress?: ProgressView; plan?: CapacityPlan; progressHref?: string }): string {
  const { read, leftOut } = input;
  const summary = `<dl id="roster"><dt>Active learners in the LMS</dt><dd id="r-learners">${n(read.learners.length)}</dd>`
    + `<dt>Other members (instructors, inactive)</dt><dd id="r-skipped">${n(read.skipped)}</dd>`
    + `<dt>Pages read</dt><dd id="r-pages">${n(read.pages)}</dd><dt>Not prepared</dt><dd id="r-left-out">${n(input.leftOutCount)}</dd></dl>`;
  const list = leftOut.length === 0 ? "" : `<h2>Not prepared</h2><p>These learners can still open the exam if the reason is fixed by then; each is then signed in when they do.</p>`
    + `<div class="scroll"><table id="left-out"><tr><th>Learner</th><th>Why</th><th>LMS user id</th></tr>${leftOut.map((m) => `<tr><td>${escapeHtml(m.name)}</td><td>${escapeHtml(m.why)}</td><td>${escapeHtml(m.userId)}</td></tr>`).join("")}</table></div>`
    + (input.leftOutCount > leftOut.length ? `<p>and ${n(input.leftOutCount - leftOut.length)} more (see the tool's log).</p>` : "");
  const progress = input.progress ? `<h2>Preparation</h2>${progressPage(input.progress)}` + (input.progressHref ? `<p><a id="progress-link" href="${escapeHtml(input.progressHref)}">Refresh the progress</a></p>` : "") : "";
  return summary + list + progress + (input.plan ? capacitySection(input.plan) : "");
}
