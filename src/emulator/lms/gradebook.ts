/**
 * The LMS emulator's gradebook (LTI AGS 2.0): line items (`GET`/`POST /lineitems`, paged
 * by `Link: rel="next"`, filtered by `resource_id`, `resource_link_id` and `tag`; `GET
 * /lineitems/:id`, `DELETE /lineitems/:id`), scores (`POST /lineitems/:id/scores`), each behind a bearer token
 * with the right scope (token.ts's `verifyBearer`), and a page per course (`GET
 * /gradebook`) showing each learner's latest activity, grading progress, score and
 * comment per line item. A placed link with a `lineItem` gets its own line item (its
 * launches carry it as the AGS claim's `lineitem`), unless the LMS creates none for 1.3
 * links (Brightspace). `setOutage(ms)` answers 503 with `Retry-After` to every AGS call
 * for that long (an LMS outage, for a tool's outbox). Each score becomes the learner's
 * result by the LMS's rules (gradebook-rules.ts: Canvas's clearing and attempts, Moodle's
 * None-type items), read back at `GET /lineitems/:id/results` (`result.readonly`; with its
 * `timestamp`, except on Canvas).
 */
import { randomUUID } from "node:crypto";
import express, { type Request, type RequestHandler, type Response } from "express";
import { escapeHtml } from "../../core/html.js";
import { applyScore, type GradebookRules, type LmsResult, type ScoreFields } from "./gradebook-rules.js";

const AGS = "https://purl.imsglobal.org/spec/lti-ags/scope/";
const LINEITEM_TYPE = "application/vnd.ims.lis.v2.lineitem+json";
const CONTAINER_TYPE = "application/vnd.ims.lis.v2.lineitemcontainer+json";
const SCORE_TYPE = "application/vnd.ims.lis.v1.score+json";
const RESULTS_TYPE = "application/vnd.ims.lis.v2.resultcontainer+json";
const ACTIVITY = ["Initialized", "Started", "InProgress", "Submitted", "Completed"];
const GRADING = ["FullyGraded", "Pending", "PendingManual", "Failed", "NotReady"];
const PAGE = 10;

export interface LmsLineItem {
  id: string;
  label: string;
  scoreMaximum: number;
  resourceId?: string;
  resourceLinkId?: string;
  tag?: string;
  /** Whether learners see its grades (Blackboard's rule: unless the tool says `false`, they do). */
  gradesReleased?: boolean;
  /** Moodle's grade type: `none` saves no score. Default `value`. */
  gradeType?: "value" | "none";
  /** Who made it: the LMS (a deep-linked item's `lineItem`) or the tool (`POST /lineitems`). */
  createdBy: "lms" | "tool";
}

/** A score as received, with when. */
export interface LmsScore extends ScoreFields {
  submission?: { startedAt?: string; submittedAt?: string };
  receivedAt: string;
}

export interface GradebookCounts {
  lineItemsCreated: number;
  /** Line items deleted (`DELETE /lineitems/:id`, scope `lineitem`). */
  lineItemsDeleted: number;
  scoresTaken: number;
  /** Scores refused (bad body, unknown line item) or answered 503 during an outage. */
  refused: number;
  outageAnswers: number;
}

export interface GradebookSide {
  router: express.Router;
  /** The course's line item container (`lineitems` of the AGS claim). */
  lineItemsUrl(): string;
  /** Creates the LMS's own line item of a placed link (what a deep-linked `lineItem` does); answers its URL. */
  addLinkLineItem(linkId: string, item: { label: string; scoreMaximum: number; resourceId?: string; tag?: string }): string;
  /** The line item URL of a link, if it has one. */
  lineItemOf(linkId: string): string | undefined;
  /** Remembers who an LMS user id (`sub`) is, for the page. */
  saw(userId: string, name: string): void;
  readonly lineItems: readonly LmsLineItem[];
  readonly scores: readonly LmsScore[];
  /** The learner's result on a line item (its URL), as the LMS keeps it after its rules. */
  resultOf(lineItemUrl: string, userId: string): LmsResult | undefined;
  /** An instructor's grade typed in the LMS's own gradebook. */
  enterGrade(lineItemUrl: string, userId: string, grade: { scoreGiven: number; comment?: string }): void;
  /** Sets a line item's grade type (Moodle's `none` saves nothing). */
  setGradeType(lineItemUrl: string, type: "value" | "none"): void;
  readonly counts: GradebookCounts;
  setOutage(ms: number): void;
}

export function gradebookSide(ctx: {
  base: () => string; verifyBearer: (req: Request, res: Response, scope: string) => boolean; courseTitle: string; rules: GradebookRules;
  /** A cell's "View submission" (Submission Review of the line item's link for that learner); undefined: none. */
  reviewHref?: (linkId: string, userId: string) => string;
}): GradebookSide {
  const items = new Map<string, LmsLineItem>();
  const scores: LmsScore[] = [];
  const results = new Map<string, LmsResult>();
  const resultKey = (lineItemUrl: string, userId: string) => `${userId}\u0000${lineItemUrl}`;
  const itemOfUrl = (lineItemUrl: string) => items.get(lineItemUrl.slice(lineItemUrl.lastIndexOf("/") + 1));
  const names = new Map<string, string>();
  const counts: GradebookCounts = { lineItemsCreated: 0, lineItemsDeleted: 0, scoresTaken: 0, refused: 0, outageAnswers: 0 };
  let outageUntil = 0;
  const url = (id: string) => `${ctx.base()}/lineitems/${id}`;
  // A None-type item (Moodle) keeps no grade: it lists no scoreMaximum.
  const shown = (i: LmsLineItem) => ({
    id: url(i.id), label: i.label, ...(i.gradeType === "none" ? {} : { scoreMaximum: i.scoreMaximum }),
    ...(i.resourceId ? { resourceId: i.resourceId } : {}), ...(i.resourceLinkId ? { resourceLinkId: i.resourceLinkId } : {}), ...(i.tag ? { tag: i.tag } : {}),
    ...(i.gradesReleased !== undefined ? { gradesReleased: i.gradesReleased } : {}),
  });
  const create = (i: Omit<LmsLineItem, "id">): LmsLineItem => {
    const item = { ...i, id: randomUUID().slice(0, 8) };
    items.set(item.id, item);
    counts.lineItemsCreated += 1;
    return item;
  };
  const down: RequestHandler = (_req, res, next) => {
    if (Date.now() < outageUntil) {
      counts.outageAnswers += 1;
      res.setHeader("Retry-After", String(Math.ceil((outageUntil - Date.now()) / 1000)));
      return void res.status(503).json({ error: "temporarily unavailable" });
    }
    next();
  };
  const refuse = (res: Response, status: number, error: string) => {
    counts.refused += 1;
    res.status(status).json({ error });
  };

  const router = express.Router();
  const json = express.json({ type: () => true, limit: "64kb" });
  router.get("/lineitems", down, (req, res) => {
    if (!ctx.verifyBearer(req, res, `${AGS}lineitem.readonly`)) return;
    const q = req.query as Record<string, string | undefined>;
    const all = [...items.values()].filter((i) => (!q.resource_id || i.resourceId === q.resource_id)
      && (!q.resource_link_id || i.resourceLinkId === q.resource_link_id) && (!q.tag || i.tag === q.tag));
    const limit = Math.min(PAGE, Math.max(1, Number(q.limit ?? PAGE) || PAGE));
    const page = Math.max(1, Number(q.page ?? 1) || 1);
    if (page * limit < all.length) {
      const next = new URL(`${ctx.base()}/lineitems`);
      for (const [k, v] of Object.entries(q)) if (v !== undefined && k !== "page") next.searchParams.set(k, v);
      next.searchParams.set("page", String(page + 1));
      res.setHeader("Link", `<${next.href}>; rel="next"`);
    }
    res.type(CONTAINER_TYPE).send(JSON.stringify(all.slice((page - 1) * limit, page * limit).map(shown)));
  });
  router.post("/lineitems", down, json, (req, res) => {
    if (!ctx.verifyBearer(req, res, `${AGS}lineitem`)) return;
    if (!String(req.get("content-type") ?? "").startsWith(LINEITEM_TYPE)) return refuse(res, 415, `Content-Type must be ${LINEITEM_TYPE}`);
    const b = (req.body ?? {}) as Record<string, unknown>;
    if (typeof b.label !== "string" || b.label === "") return refuse(res, 400, "label is required");
    if (typeof b.scoreMaximum !== "number" || !(b.scoreMaximum > 0)) return refuse(res, 400, "scoreMaximum must be a number above 0");
    const item = create({
      label: b.label, scoreMaximum: b.scoreMaximum, createdBy: "tool",
      ...(typeof b.resourceId === "string" ? { resourceId: b.resourceId } : {}),
      ...(typeof b.resourceLinkId === "string" ? { resourceLinkId: b.resourceLinkId } : {}),
      ...(typeof b.tag === "string" ? { tag: b.tag } : {}),
      ...(typeof b.gradesReleased === "boolean" ? { gradesReleased: b.gradesReleased } : {}),
    });
    res.status(201).type(LINEITEM_TYPE).send(JSON.stringify(shown(item)));
  });
  router.get("/lineitems/:id", down, (req, res) => {
    if (!ctx.verifyBearer(req, res, `${AGS}lineitem.readonly`)) return;
    const item = items.get(String(req.params.id));
    if (!item) return refuse(res, 404, "no such line item");
    res.type(LINEITEM_TYPE).send(JSON.stringify(shown(item)));
  });
  router.delete("/lineitems/:id", down, (req, res) => {
    if (!ctx.verifyBearer(req, res, `${AGS}lineitem`)) return;
    if (!items.delete(String(req.params.id))) return refuse(res, 404, "no such line item");
    counts.lineItemsDeleted += 1;
    res.status(204).end();
  });
  router.post("/lineitems/:id/scores", down, json, (req, res) => {
    if (!ctx.verifyBearer(req, res, `${AGS}score`)) return;
    const item = items.get(String(req.params.id));
    if (!item) return refuse(res, 404, "no such line item");
    if (!String(req.get("content-type") ?? "").startsWith(SCORE_TYPE)) return refuse(res, 415, `Content-Type must be ${SCORE_TYPE}`);
    const b = (req.body ?? {}) as Record<string, unknown>;
    const problems: string[] = [];
    if (typeof b.userId !== "string" || b.userId === "") problems.push("userId is required");
    if (!ACTIVITY.includes(String(b.activityProgress))) problems.push("activityProgress is not one of the spec's values");
    if (!GRADING.includes(String(b.gradingProgress))) problems.push("gradingProgress is not one of the spec's values");
    if (typeof b.timestamp !== "string" || Number.isNaN(Date.parse(b.timestamp))) problems.push("timestamp must be an ISO 8601 date-time");
    if (b.scoreGiven !== undefined && (typeof b.scoreGiven !== "number" || typeof b.scoreMaximum !== "number")) problems.push("scoreGiven needs scoreMaximum, both numbers");
    if (problems.length > 0) return refuse(res, 400, problems.join("; "));
    counts.scoresTaken += 1;
    const score: LmsScore = {
      lineItemId: url(item.id), userId: b.userId as string, activityProgress: b.activityProgress as string, gradingProgress: b.gradingProgress as string,
      timestamp: b.timestamp as string, receivedAt: new Date().toISOString(),
      ...(typeof b.scoreGiven === "number" ? { scoreGiven: b.scoreGiven, scoreMaximum: b.scoreMaximum as number } : {}),
      ...(typeof b.comment === "string" ? { comment: b.comment } : {}),
      ...(typeof b.submission === "object" && b.submission !== null ? { submission: b.submission as LmsScore["submission"] } : {}),
    };
    scores.push(score);
    const k = resultKey(score.lineItemId, score.userId);
    const after = applyScore(ctx.rules, results.get(k), { ...score, body: b }, item.gradeType ?? "value");
    if (after) results.set(k, after);
    // Moodle answers 200 (and saves nothing on a None-type item); the others 204.
    if (ctx.rules === "moodle") return void res.status(200).json({});
    res.status(204).end();
  });
  router.get("/lineitems/:id/results", down, (req, res) => {
    if (!ctx.verifyBearer(req, res, `${AGS}result.readonly`)) return;
    const item = items.get(String(req.params.id));
    if (!item) return refuse(res, 404, "no such line item");
    const userId = typeof req.query.user_id === "string" ? req.query.user_id : undefined;
    const mine = [...results.values()].filter((r) => r.lineItemId === url(item.id) && (!userId || r.userId === userId));
    res.type(RESULTS_TYPE).send(JSON.stringify(mine.map((r) => ({
      id: `${url(item.id)}/results/${encodeURIComponent(r.userId)}`, scoreOf: url(item.id), userId: r.userId,
      ...(r.scoreGiven !== undefined ? { resultScore: r.scoreGiven, resultMaximum: r.scoreMaximum } : {}),
      ...(r.comment !== undefined ? { comment: r.comment } : {}),
      // When the result last changed, as Moodle's results show it; Canvas's Result API has none.
      ...(ctx.rules !== "canvas" ? { timestamp: r.timestamp } : {}),
    }))));
  });
  router.get("/gradebook", (_req, res) => {
    res.setHeader("Cache-Control", "no-store");
    res.type("html").send(gradebookPage(ctx.courseTitle, [...items.values()].map((i) => ({ ...i, url: url(i.id) })), [...results.values()], names, ctx.reviewHref));
  });

  return {
    router,
    lineItemsUrl: () => `${ctx.base()}/lineitems`,
    addLinkLineItem(linkId, item) {
      return url(create({ ...item, resourceLinkId: linkId, createdBy: "lms" }).id);
    },
    lineItemOf(linkId) {
      const item = [...items.values()].find((i) => i.resourceLinkId === linkId && i.createdBy === "lms");
      return item && url(item.id);
    },
    saw(userId, name) { names.set(userId, name); },
    get lineItems() { return [...items.values()]; },
    scores,
    resultOf: (lineItemUrl, userId) => results.get(resultKey(lineItemUrl, userId)),
    enterGrade(lineItemUrl, userId, grade) {
      const item = itemOfUrl(lineItemUrl);
      if (!item) throw new Error(`no line item ${lineItemUrl}`);
      const k = resultKey(lineItemUrl, userId);
      const had = results.get(k);
      results.set(k, {
        lineItemId: lineItemUrl, userId, activityProgress: had?.activityProgress ?? "Completed", gradingProgress: "FullyGraded", attempt: had?.attempt ?? 1,
        scoreGiven: grade.scoreGiven, scoreMaximum: item.scoreMaximum, gradedBy: "instructor", timestamp: new Date().toISOString(),
        ...(grade.comment !== undefined ? { comment: grade.comment } : had?.comment !== undefined ? { comment: had.comment } : {}),
      });
    },
    setGradeType(lineItemUrl, type) {
      const item = itemOfUrl(lineItemUrl);
      if (!item) throw new Error(`no line item ${lineItemUrl}`);
      item.gradeType = type;
    },
    counts,
    setOutage(ms) { outageUntil = Date.now() + ms; },
  };
}

/** Rows: learners; columns: line items; a cell: the learner's result (the latest score by timestamp, after the LMS's rules). */
function gradebookPage(title: string, items: (LmsLineItem & { url: string })[], scores: readonly LmsResult[], names: Map<string, string>, reviewHref?: (linkId: string, userId: string) => string): string {
  const latest = new Map<string, LmsResult>();
  for (const s of scores) latest.set(`${s.userId}\u0000${s.lineItemId}`, s);
  const users = [...new Set(scores.map((s) => s.userId))];
  const head = items.map((i) => `<th scope="col">${escapeHtml(i.label)}${i.resourceId ? `<br><small>${escapeHtml(i.resourceId)}</small>` : ""}</th>`).join("");
  const rows = users.map((u) => `<tr data-user="${escapeHtml(u)}"><th scope="row">${escapeHtml(names.get(u) ?? u)}</th>${items.map((i) => {
    const s = latest.get(`${u}\u0000${i.url}`);
    if (!s) return "<td>–</td>";
    const score = s.scoreGiven !== undefined ? ` <strong class="score">${s.scoreGiven}/${s.scoreMaximum}</strong>` : "";
    return `<td class="cell" data-activity="${escapeHtml(s.activityProgress)}" data-grading="${escapeHtml(s.gradingProgress)}"><span class="activity">${escapeHtml(s.activityProgress)}</span> · <span class="grading">${escapeHtml(s.gradingProgress)}</span>${score}${s.comment ? `<br><small class="comment">${escapeHtml(s.comment)}</small>` : ""}${i.resourceLinkId && reviewHref ? `<br><a class="review" href="${escapeHtml(reviewHref(i.resourceLinkId, u))}">View submission</a>` : ""}</td>`;
  }).join("")}</tr>`).join("");
  return `<!doctype html><html><head><meta charset="utf-8"><title>Gradebook</title>
<style>body{font:16px system-ui;margin:1rem}table{border-collapse:collapse}td,th{border:1px solid #999;padding:.3rem .5rem;text-align:left;vertical-align:top}</style></head><body>
<h1>Gradebook: ${escapeHtml(title)}</h1>
${items.length === 0 ? '<p id="empty">No grade items yet.</p>' : `<table id="gradebook"><thead><tr><th>Learner</th>${head}</tr></thead><tbody>${rows || `<tr><td colspan="${items.length + 1}">No scores yet.</td></tr>`}</tbody></table>`}
</body></html>`;
}
