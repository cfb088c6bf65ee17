/**
 * A link's Assignment and Grade Services (AGS 2.0) as one object, as pylti1.3's
 * `AssignmentsGradesService` is: built from the launch's AGS endpoint claim (`lineitems`,
 * the link's own `lineitem`, the scopes the LMS granted), each method checks the scope it
 * needs by name before anything is sent, and every paged read (line items, results) goes
 * through the one bounded paging helper (paging.ts). One token per link: the granted
 * scopes the tool uses. Where the token may go is service-access.ts's rule; which line
 * item to use, and whether its id may be trusted, is the gradebook's (gradebook/ags.ts).
 */
import type { Registration } from "../lms/registrations.js";
import { LTI_SCOPES, ServiceAccessError, type ServiceAccess } from "../lms/service-access.js";
import { pagesOf } from "./paging.js";

export const LINEITEM_TYPE = "application/vnd.ims.lis.v2.lineitem+json";
export const LINEITEMS_TYPE = "application/vnd.ims.lis.v2.lineitemcontainer+json";
export const SCORE_TYPE = "application/vnd.ims.lis.v1.score+json";
export const RESULTS_TYPE = "application/vnd.ims.lis.v2.resultcontainer+json";

/** The AGS scopes, by their short names. */
export const AGS_SCOPES = {
  lineitem: LTI_SCOPES.lineItem,
  "lineitem.readonly": LTI_SCOPES.lineItemReadonly,
  "result.readonly": LTI_SCOPES.resultReadonly,
  score: LTI_SCOPES.score,
} as const;
export type AgsScope = keyof typeof AGS_SCOPES;

/** The AGS endpoint claim of a launch, as kept (launch-gradebook.ts). */
export interface AgsClaim {
  lineItem?: string;
  lineItems?: string;
  scope: readonly string[];
}

/** A line item as the LMS lists it (AGS §3.2); only `id` is checked. */
export interface LineItem {
  id: string;
  label?: unknown;
  scoreMaximum?: unknown;
  resourceId?: unknown;
  resourceLinkId?: unknown;
  tag?: unknown;
}

/** A learner's result as the LMS keeps it (AGS §3.3): `resultMaximum` absent means 1. */
export interface AgsResult {
  userId: string;
  resultScore?: number;
  resultMaximum?: number;
  comment?: string;
  /** When the LMS's result was last changed, when the LMS shows it (ISO 8601). */
  timestamp?: string;
}

/** Pages of results read for one learner (one is the rule; an LMS may page an empty answer). */
const RESULT_PAGES = 5;

/** `{lineitem}/{sub}` (scores, results), its query string kept, as ltijs does. */
export function lineItemPath(lineItem: string, sub: "scores" | "results"): string {
  const u = new URL(lineItem);
  u.pathname = `${u.pathname.replace(/\/+$/, "")}/${sub}`;
  return u.href;
}

export class AssignmentsGradesService {
  /** The token's scopes: those the LMS granted that the tool uses (one token for every call of the link). */
  readonly scopes: string[];

  constructor(private readonly access: ServiceAccess, private readonly registration: Registration, readonly claim: AgsClaim) {
    this.scopes = Object.values(AGS_SCOPES).filter((s) => claim.scope.includes(s));
  }

  /** Whether the LMS granted this scope to the link. */
  can(scope: AgsScope): boolean {
    return this.claim.scope.includes(AGS_SCOPES[scope]);
  }

  /** Line items may be read: `lineitem.readonly`, or `lineitem` (which includes reading). */
  canReadLineItems(): boolean {
    return this.can("lineitem.readonly") || this.can("lineitem");
  }

  private need(ok: boolean, scope: string, what: string): void {
    if (!ok) throw new ServiceAccessError("no_scope", `The LMS did not grant the AGS ${scope} scope to this link, which ${what} needs: enable it on the tool's registration.`);
  }

  /**
   * The first line item of the course's `lineitems` (filtered by `query`) that `match`es,
   * reading at most `maxPages` pages (then undefined: the caller may make one).
   */
  async findLineItem(query: Record<string, string>, match: (item: LineItem) => boolean, maxPages: number): Promise<LineItem | undefined> {
    this.need(this.canReadLineItems(), "lineitem.readonly", "finding a line item");
    if (!this.claim.lineItems) return undefined;
    const first = new URL(this.claim.lineItems);
    for (const [k, v] of Object.entries(query)) first.searchParams.set(k, v);
    for await (const page of pagesOf(this.access, this.registration, this.scopes, first.href, LINEITEMS_TYPE, { what: "line items", maxPages })) {
      const found = Array.isArray(page.body) ? (page.body as LineItem[]).find((i) => i !== null && typeof i === "object" && typeof i.id === "string" && match(i)) : undefined;
      if (found) return found;
    }
    return undefined;
  }

  /** One line item (`GET {lineitem}`). */
  async lineItem(url: string): Promise<LineItem> {
    this.need(this.canReadLineItems(), "lineitem.readonly", "reading a line item");
    const answer = await this.access.call(this.registration, this.scopes, { url, accept: LINEITEM_TYPE });
    const body = answer.body as LineItem | undefined;
    if (body === null || typeof body !== "object") throw new ServiceAccessError("bad_answer", "The LMS's line item is not a JSON object.", answer.status);
    return body;
  }

  /** Makes a line item in the course's `lineitems`; answers what the LMS answered (its `id` unchecked). */
  async createLineItem(item: Record<string, unknown>): Promise<Partial<LineItem>> {
    this.need(this.can("lineitem") && this.claim.lineItems !== undefined, "lineitem", "making a line item");
    const made = await this.access.call(this.registration, this.scopes, { method: "POST", url: this.claim.lineItems!, accept: LINEITEM_TYPE, contentType: LINEITEM_TYPE, body: item });
    return (made.body !== null && typeof made.body === "object" ? made.body : {}) as Partial<LineItem>;
  }

  /** Deletes a line item the tool made (`DELETE {lineitem}`). */
  async deleteLineItem(url: string): Promise<void> {
    this.need(this.can("lineitem"), "lineitem", "deleting a line item");
    await this.access.call(this.registration, this.scopes, { method: "DELETE", url, accept: LINEITEM_TYPE });
  }

  /** The results of a line item (`GET {lineitem}/results`), of one learner with `userId`. */
  async results(lineItem: string, userId?: string): Promise<AgsResult[]> {
    this.need(this.can("result.readonly"), "result.readonly", "reading results");
    const first = new URL(lineItemPath(lineItem, "results"));
    if (userId !== undefined) first.searchParams.set("user_id", userId);
    const results: AgsResult[] = [];
    for await (const page of pagesOf(this.access, this.registration, this.scopes, first.href, RESULTS_TYPE, { what: "results", maxPages: RESULT_PAGES, morePages: `The LMS's results have more than ${RESULT_PAGES} pages.` })) {
      if (!Array.isArray(page.body)) throw new ServiceAccessError("bad_answer", `The LMS's results page ${page.page} is not a JSON array.`, page.status);
      for (const r of page.body as unknown[]) {
        const o = (r !== null && typeof r === "object" ? r : {}) as Record<string, unknown>;
        if (typeof o.userId !== "string" || (userId !== undefined && o.userId !== userId)) continue;
        results.push({
          userId: o.userId,
          ...(typeof o.resultScore === "number" && Number.isFinite(o.resultScore) ? { resultScore: o.resultScore } : {}),
          ...(typeof o.resultMaximum === "number" && o.resultMaximum > 0 ? { resultMaximum: o.resultMaximum } : {}),
          ...(typeof o.comment === "string" ? { comment: o.comment } : {}),
          ...(typeof o.timestamp === "string" && !Number.isNaN(Date.parse(o.timestamp)) ? { timestamp: o.timestamp } : {}),
        });
      }
    }
    return results;
  }

  /** Posts a score (`POST {lineitem}/scores`); `timeoutMs`: this post's time limit. */
  async postScore(lineItem: string, score: Record<string, unknown>, timeoutMs?: number): Promise<void> {
    this.need(this.can("score"), "score", "posting a score");
    await this.access.call(this.registration, this.scopes, { method: "POST", url: lineItemPath(lineItem, "scores"), accept: "application/json", contentType: SCORE_TYPE, body: score, ...(timeoutMs !== undefined ? { timeoutMs } : {}) });
  }
}
