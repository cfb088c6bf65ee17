/**
 * What a learner's launch tells the gradebook: the LMS course (issuer, client id,
 * deployment, `context.id`), the LMS user (`sub`), the resource link, and the AGS
 * endpoint claim (`lineitems`, the link's own `lineitem`, the scopes granted). Kept with
 * the exam link (open-link.ts) and in the return mark; undefined when the launch has no
 * AGS claim or no course (the LMS offers no gradebook to this link).
 */
import { isText, textOf } from "../../core/text.js";
import { CLAIM } from "../claims.js";
import { isLmsUrl } from "../lms-url.js";
import type { VerifiedLaunch } from "../verify-launch.js";
import type { LtiCourseKey } from "../../store/lti-course-types.js";

export const AGS_CLAIM = "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint";

export interface LaunchGradebook {
  course: LtiCourseKey;
  userId: string;
  resourceLinkId?: string;
  /** The link's title: the label of a line item the tool creates. */
  title?: string;
  ags: { lineItem?: string; lineItems?: string; scope: string[] };
  /** ISO 8601: the LTI launch's time. */
  launchedAt: string;
}

/** A line item URL the tool may send its bearer token to: https (http only on loopback), as every URL an LMS gives. */
const serviceUrl = (v: unknown): string | undefined => (isLmsUrl(v) ? v : undefined);

export function gradebookOfLaunch(launch: Pick<VerifiedLaunch, "claims" | "registration" | "deploymentId">, now = new Date()): LaunchGradebook | undefined {
  const claim = launch.claims[AGS_CLAIM] as Record<string, unknown> | undefined;
  const contextId = textOf((launch.claims[CLAIM.context] as { id?: unknown } | undefined)?.id, 255);
  const userId = textOf(launch.claims.sub, 255);
  if (!claim || typeof claim !== "object" || !contextId || !userId) return undefined;
  const lineItem = serviceUrl(claim.lineitem);
  const lineItems = serviceUrl(claim.lineitems);
  if (!lineItem && !lineItems) return undefined;
  const link = launch.claims[CLAIM.resourceLink] as { id?: unknown; title?: unknown } | undefined;
  const resourceLinkId = textOf(link?.id, 255);
  const title = textOf(link?.title, 255);
  const scope = Array.isArray(claim.scope) ? claim.scope.filter((s): s is string => isText(s, 255)).slice(0, 10) : [];
  return {
    course: { issuer: launch.registration.issuer, clientId: launch.registration.clientId, deploymentId: launch.deploymentId, contextId },
    userId,
    ...(resourceLinkId ? { resourceLinkId } : {}),
    ...(title ? { title } : {}),
    ags: { ...(lineItem ? { lineItem } : {}), ...(lineItems ? { lineItems } : {}), scope },
    launchedAt: now.toISOString(),
  };
}
