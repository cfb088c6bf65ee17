/**
 * Posting one queued score to the LMS through the link's AGS service (services/ags.ts):
 * find the line item, read what the LMS holds before a grade (lms-reads.ts), then post. The
 * line item is the launch's `lineitem` claim (a deep-linked link's own item), else the one
 * the tool recorded for this exam and course, else the tool's own found by `resource_id` in
 * the course's `lineitems`, else a new one posted there (Brightspace makes none for 1.3
 * links), recorded per (exam, course) so every learner's score lands in one column.
 *
 * Line item ids the tool sends its token to, found in the course's `lineitems` answer, made
 * there or kept from before, must be on that URL's origin (and https): an LMS answer cannot
 * send the token elsewhere. One item per exam and course across a fleet: the instance
 * holding the fleet's lease for it makes it (another finds it at its next try); instances
 * that share only a store may both make one, and the one whose item the store did not keep
 * deletes its own (found again after create).
 *
 * Failures come back as a `SendFailure` (send-failure.ts); a post is `sent`, or skipped
 * when the LMS has the grade already, with a note of what the LMS held.
 */
import { createHash } from "node:crypto";
import type { Logger } from "../../core/logger.js";
import type { OralStoreLtiGradebook, LtiScoreRecord } from "../../store/lti-gradebook-types.js";
import { isServiceUrl } from "../shared/lms-url.js";
import type { Registration } from "../lms/registrations.js";
import { ServiceAccessError, type ServiceAccess } from "../lms/service-access.js";
import { AssignmentsGradesService } from "../services/ags.js";
import { scoreBody } from "./entries.js";
import { lmsReads, type GradeNote } from "./lms-reads.js";
import type { GradebookSettings } from "../options/gradebook-options.js";
import { SendFailure } from "./send-failure.js";

export { SendFailure } from "./send-failure.js";

/** Pages of `lineitems` read looking for the tool's own item. */
const MAX_PAGES = 20;
/** The longest label Open edX keeps (its `LtiAgsLineItem.label`); the others take more. */
export const MAX_LABEL = 100;

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

/** What a post did: `note`, what the LMS held (nothing was posted when it had the grade already). */
export interface SendOutcome { note?: GradeNote }

/** A line item's `submissionReview` (Submission Review 1.0): the gradebook may open a learner's record once they started. */
export const submissionReviewOf = (url: string | undefined) => ({ reviewableStatus: ["Started", "Submitted", "Completed"], ...(url ? { url } : {}) });

export function agsSender(deps: AgsDeps) {
  /** One line item lookup or creation at a time per (exam, course) in this process: concurrent first scores make one item. */
  const creating = new Map<string, Promise<string>>();
  const reads = lmsReads(deps);

  async function lineItemOf(r: LtiScoreRecord, ags: AssignmentsGradesService): Promise<string> {
    if (r.ags.lineItem) return r.ags.lineItem;
    const known = await deps.store.getLtiLineItem(r.org, r.key);
    if (known) return checkedId(known, r.ags.lineItems ?? known, "kept");
    if (!r.ags.lineItems || !ags.can("lineitem")) {
      throw new SendFailure("The link has no line item and the LMS did not grant the lineitem scope to make one: place the exam by deep linking, or enable the AGS line item scope on the tool's registration.", false);
    }
    const key = JSON.stringify([r.org, r.key]);
    let pending = creating.get(key);
    if (!pending) {
      pending = findOrCreate(r, ags).finally(() => creating.delete(key));
      creating.set(key, pending);
    }
    return pending;
  }

  async function findOrCreate(r: LtiScoreRecord, ags: AssignmentsGradesService): Promise<string> {
    // Another instance (or an earlier run) may have made it: look for it by resource id and tag first.
    // The bearer token goes with each page: a next page elsewhere is refused, not followed
    // (nor skipped: the tool's item may be on it, and a second column would be made).
    const found = await ags.findLineItem({ resource_id: r.key.examId, tag: deps.settings.tag }, (i) => i.resourceId === r.key.examId, MAX_PAGES);
    if (found) return deps.store.putLtiLineItem(r.org, r.key, checkedId(found.id, r.ags.lineItems!, "found"));
    // Not found: the instance holding the fleet's lease makes it; another tries again later and finds it.
    const leaseKey = `lti-line-item-${createHash("sha256").update(JSON.stringify([r.org, r.key])).digest("base64url").slice(0, 32)}`;
    if (deps.lease && !(await deps.lease.lead(leaseKey))) throw new SendFailure("Another instance is making this exam's line item in the LMS course; the score is posted once it is there.", true);
    try {
      const made = await ags.createLineItem({
        label: r.label.slice(0, MAX_LABEL), scoreMaximum: deps.settings.scoreMaximum, resourceId: r.key.examId, tag: deps.settings.tag,
        gradesReleased: deps.settings.gradesReleased, ...(r.resourceLinkId ? { resourceLinkId: r.resourceLinkId } : {}),
        submissionReview: submissionReviewOf(deps.reviewUrl),
      });
      if (typeof made.id !== "string" || !URL.canParse(made.id)) throw new SendFailure("The LMS made a line item but answered no id URL for it.", true);
      const id = checkedId(made.id, r.ags.lineItems!, "made");
      deps.logger.info({ event: "lti_line_item_created", examId: r.key.examId, issuer: r.key.issuer }, "created the exam's line item in the LMS course");
      const kept = await deps.store.putLtiLineItem(r.org, r.key, id);
      // Another instance sharing the store made one too and kept its own first: ours goes, so the course has one column.
      if (kept !== id) await dropDuplicate(ags, id, r);
      return kept;
    } finally {
      await deps.lease?.resign(leaseKey).catch(() => undefined);
    }
  }

  async function dropDuplicate(ags: AssignmentsGradesService, id: string, r: LtiScoreRecord): Promise<void> {
    try {
      await ags.deleteLineItem(id);
      deps.logger.info({ event: "lti_line_item_duplicate", examId: r.key.examId, issuer: r.key.issuer, outcome: "deleted" }, "another instance made the exam's line item at the same time: this one's copy was deleted");
    } catch (error) {
      deps.logger.warn({ event: "lti_line_item_duplicate", examId: r.key.examId, issuer: r.key.issuer, outcome: "kept", error: (error as Error)?.message }, "another instance made the exam's line item at the same time, and this one's copy could not be deleted: the course shows an empty second column to delete by hand");
    }
  }

  /** A line item id from the answer of `source` (or kept from one): a service URL on its origin, else refused with nothing sent there. */
  function checkedId(id: unknown, source: string, how: "found" | "made" | "kept"): string {
    if (isServiceUrl(id, deps.loopbackHttp, new URL(source).origin)) return id;
    const shown = typeof id === "string" && URL.canParse(id) ? new URL(id).origin : "(not a URL)";
    throw new SendFailure(`The line item the LMS ${how === "made" ? "made" : how === "found" ? "listed" : "gave before"} is at ${shown}, not an https URL on the origin of the course's line items (${new URL(source).origin}): the tool's token is not sent there.`, false);
  }

  return async function send(r: LtiScoreRecord): Promise<SendOutcome> {
    const registration = await deps.registration(r.key.issuer, r.key.clientId);
    if (!registration) throw new SendFailure(`The tool no longer has a registration for ${r.key.issuer} (client id ${r.key.clientId}).`, false);
    const ags = new AssignmentsGradesService(deps.access, registration, r.ags);
    if (!ags.can("score")) throw new SendFailure("The LMS did not grant the AGS score scope to this link: enable it on the tool's registration.", false);
    try {
      const lineItem = await lineItemOf(r, ags);
      const check = await reads.beforeGrade(ags, lineItem, r);
      if (check.post) await ags.postScore(lineItem, scoreBody(r), deps.settings.scoreTimeoutMs);
      return check.note ? { note: check.note } : {};
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
