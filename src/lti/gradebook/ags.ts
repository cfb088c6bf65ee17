/**
 * Posting one queued score to the LMS (LTI AGS 2.0): find the line item, then `POST
 * {lineitem}/scores` (its query string kept, as ltijs does). The line item is the
 * launch's `lineitem` claim (a deep-linked link's own item), else the one the tool
 * recorded for this exam and course, else the tool's own found by `resource_id` in the
 * course's `lineitems`, else a new one posted there (Brightspace makes none for 1.3
 * links), recorded per (exam, course) so every learner's score lands in one column.
 *
 * Line item ids the tool sends its token to, found in the course's `lineitems` answer, made
 * there or kept from before, must be on that URL's origin (and https): an LMS answer cannot
 * send the token elsewhere. One item per exam and course across a fleet: the instance
 * holding the fleet's lease for it makes it; another finds it at its next try.
 *
 * Failures come back as a `SendFailure`: `retry` for what time may cure (the LMS down,
 * 429, 5xx, a token endpoint unreachable), not for what it will not (no line item to
 * use, a refusal, a registration gone), which the launch record then shows.
 */
import type { Logger } from "../../core/logger.js";
import type { OralStoreLtiGradebook, LtiScoreRecord } from "../../store/lti-gradebook-types.js";
import type { Registration } from "../registrations.js";
import { createHash } from "node:crypto";
import { isServiceUrl } from "../lms-url.js";
import { nextPageOn } from "../next-page.js";
import { LTI_SCOPES, ServiceAccessError, type ServiceAccess } from "../service-access.js";
import { scoreBody } from "./entries.js";
import type { GradebookSettings } from "./options.js";

const LINEITEM = "application/vnd.ims.lis.v2.lineitem+json";
const CONTAINER = "application/vnd.ims.lis.v2.lineitemcontainer+json";
const SCORE = "application/vnd.ims.lis.v1.score+json";
/** Pages of `lineitems` read looking for the tool's own item. */
const MAX_PAGES = 20;
/** The longest label Open edX keeps (its `LtiAgsLineItem.label`); the others take more. */
export const MAX_LABEL = 100;

export class SendFailure extends Error {
  constructor(message: string, readonly retry: boolean,
    /** What the LMS answered (undefined: no answer: unreachable, timed out), and its `Retry-After` (ms) on a 429 or 503. */
    readonly answer?: { status?: number; retryAfterMs?: number }) {
    super(message);
  }
}

export interface AgsDeps {
  store: OralStoreLtiGradebook;
  access: ServiceAccess;
  /** The registration of (issuer, client id), as the launch found it. */
  registration: (issuer: string, clientId: string) => Promise<Registration | undefined>;
  settings: GradebookSettings;
  logger: Logger;
  /** The tool's launch URL for Submission Review, when `lti.toolUrl` names it (else the LMS uses the link's). */
  reviewUrl?: string;
  /** `lti.allowLoopbackHttp`: plain-http loopback service URLs (development). */
  loopbackHttp: boolean;
  /** The fleet's right to make one line item (the plan lease store): true, ours; false, another instance is making it. */
  lease?: { lead(key: string): Promise<boolean>; resign(key: string): Promise<void> };
}

/** A line item's `submissionReview` (Submission Review 1.0): the gradebook may open a learner's record once they started. */
export const submissionReviewOf = (url: string | undefined) => ({ reviewableStatus: ["Started", "Submitted", "Completed"], ...(url ? { url } : {}) });

/** `{lineitem}/scores`, the query string kept. */
export function scoresUrl(lineItem: string): string {
  const u = new URL(lineItem);
  u.pathname = `${u.pathname.replace(/\/+$/, "")}/scores`;
  return u.href;
}

export function agsSender(deps: AgsDeps) {
  /** One line item lookup or creation at a time per (exam, course) in this process: concurrent first scores make one item. */
  const creating = new Map<string, Promise<string>>();

  async function lineItemOf(r: LtiScoreRecord, registration: Registration, scopes: string[]): Promise<string> {
    if (r.ags.lineItem) return r.ags.lineItem;
    const known = await deps.store.getLtiLineItem(r.org, r.key);
    if (known) return checkedId(known, r.ags.lineItems ?? known, "kept");
    if (!r.ags.lineItems || !r.ags.scope.includes(LTI_SCOPES.lineItem)) {
      throw new SendFailure("The link has no line item and the LMS did not grant the lineitem scope to make one: place the exam by deep linking, or enable the AGS line item scope on the tool's registration.", false);
    }
    const key = JSON.stringify([r.org, r.key]);
    let pending = creating.get(key);
    if (!pending) {
      pending = findOrCreate(r, registration, scopes).finally(() => creating.delete(key));
      creating.set(key, pending);
    }
    return pending;
  }

  async function findOrCreate(r: LtiScoreRecord, registration: Registration, scopes: string[]): Promise<string> {
    // Another instance (or an earlier run) may have made it: look for it by resource id and tag first.
    const first = new URL(withQuery(r.ags.lineItems!, { resource_id: r.key.examId, tag: deps.settings.tag }));
    let url: string | undefined = first.href;
    for (let page = 0; url && page < MAX_PAGES; page++) {
      const answer = await deps.access.call(registration, scopes, { url, accept: CONTAINER });
      const found = Array.isArray(answer.body) ? (answer.body as { id?: unknown; resourceId?: unknown; tag?: unknown }[]).find((i) => i.resourceId === r.key.examId && typeof i.id === "string") : undefined;
      if (found) return deps.store.putLtiLineItem(r.org, r.key, checkedId(found.id, r.ags.lineItems!, "found"));
      const after = nextPageOn(first, answer.headers.link, url);
      // The bearer token goes with each page: a next page elsewhere is refused, not followed
      // (nor skipped: the tool's item may be on it, and a second column would be made).
      if (typeof after === "object") throw new SendFailure(`The LMS's line items page ${page + 1} names a next page on another origin (${after.foreign}); it was not followed.`, false);
      url = after;
    }
    // Not found: the instance holding the fleet's lease makes it; another tries again later and finds it.
    const leaseKey = `lti-line-item-${createHash("sha256").update(JSON.stringify([r.org, r.key])).digest("base64url").slice(0, 32)}`;
    if (deps.lease && !(await deps.lease.lead(leaseKey))) throw new SendFailure("Another instance is making this exam's line item in the LMS course; the score is posted once it is there.", true);
    try {
      const made = await deps.access.call(registration, scopes, {
        method: "POST", url: r.ags.lineItems!, accept: LINEITEM, contentType: LINEITEM,
        body: {
          label: r.label.slice(0, MAX_LABEL), scoreMaximum: deps.settings.scoreMaximum, resourceId: r.key.examId, tag: deps.settings.tag,
          gradesReleased: deps.settings.gradesReleased, ...(r.resourceLinkId ? { resourceLinkId: r.resourceLinkId } : {}),
          submissionReview: submissionReviewOf(deps.reviewUrl),
        },
      });
      const id = (made.body as { id?: unknown } | undefined)?.id;
      if (typeof id !== "string" || !URL.canParse(id)) throw new SendFailure("The LMS made a line item but answered no id URL for it.", true);
      deps.logger.info({ event: "lti_line_item_created", examId: r.key.examId, issuer: r.key.issuer }, "created the exam's line item in the LMS course");
      return await deps.store.putLtiLineItem(r.org, r.key, checkedId(id, r.ags.lineItems!, "made"));
    } finally {
      await deps.lease?.resign(leaseKey).catch(() => undefined);
    }
  }

  /** A line item id from the answer of `source` (or kept from one): a service URL on its origin, else refused with nothing sent there. */
  function checkedId(id: unknown, source: string, how: "found" | "made" | "kept"): string {
    if (isServiceUrl(id, deps.loopbackHttp, new URL(source).origin)) return id;
    const shown = typeof id === "string" && URL.canParse(id) ? new URL(id).origin : "(not a URL)";
    throw new SendFailure(`The line item the LMS ${how === "made" ? "made" : how === "found" ? "listed" : "gave before"} is at ${shown}, not an https URL on the origin of the course's line items (${new URL(source).origin}): the tool's token is not sent there.`, false);
  }

  return async function send(r: LtiScoreRecord): Promise<void> {
    const registration = await deps.registration(r.key.issuer, r.key.clientId);
    if (!registration) throw new SendFailure(`The tool no longer has a registration for ${r.key.issuer} (client id ${r.key.clientId}).`, false);
    if (!r.ags.scope.includes(LTI_SCOPES.score)) throw new SendFailure("The LMS did not grant the AGS score scope to this link: enable it on the tool's registration.", false);
    // One token for every AGS call of this link: the scopes the LMS granted that the tool uses.
    const scopes = [LTI_SCOPES.lineItem, LTI_SCOPES.lineItemReadonly, LTI_SCOPES.score].filter((s) => r.ags.scope.includes(s));
    try {
      const lineItem = await lineItemOf(r, registration, scopes);
      await deps.access.call(registration, scopes, { method: "POST", url: scoresUrl(lineItem), accept: "application/json", contentType: SCORE, body: scoreBody(r), timeoutMs: deps.settings.scoreTimeoutMs });
    } catch (error) {
      if (error instanceof SendFailure) throw error;
      if (error instanceof ServiceAccessError) {
        const retry = error.kind === "unreachable" || error.kind === "bad_answer" || error.status === 408 || error.status === 429;
        throw new SendFailure(error.message, retry, { status: error.status, retryAfterMs: error.retryAfterMs });
      }
      throw new SendFailure(`The score could not be posted: ${(error as Error)?.message ?? String(error)}`, true);
    }
  };
}

function withQuery(url: string, params: Record<string, string>): string {
  const u = new URL(url);
  for (const [k, v] of Object.entries(params)) u.searchParams.set(k, v);
  return u.href;
}
