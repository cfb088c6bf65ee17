/**
 * What a learner's launch tells the gradebook: the LMS course (issuer, client id,
 * deployment, `context.id`), the LMS user (`sub`), the resource link, and the AGS
 * endpoint claim (`lineitems`, the link's own `lineitem`, the scopes granted). Kept with
 * the exam link (open-link.ts) and in the return mark; undefined when the launch has no
 * AGS claim or no course (the LMS offers no gradebook to this link).
 */
import { textOf } from "../../core/text.js";
import { isServiceUrl } from "../shared/lms-url.js";
import type { LaunchClaims } from "./typed-launch.js";
import type { VerifiedLaunch } from "./verify-launch.js";
import type { LtiCourseKey } from "../../store/lti-course-types.js";

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

/**
 * The line item URLs are those the launch's reading kept (typed-launch.ts) that may get the
 * tool's bearer token: https, plain http on loopback only with `loopbackHttp`
 * (`lti.allowLoopbackHttp`, lms-url.ts's `isServiceUrl`); a claim that is neither is not used.
 */
export function gradebookOfLaunch(launch: Pick<LaunchClaims, "services" | "context" | "userId" | "resourceLink"> & Pick<VerifiedLaunch, "registration" | "deploymentId">, loopbackHttp: boolean, now = new Date()): LaunchGradebook | undefined {
  const ags = launch.services.ags;
  const contextId = textOf(launch.context?.id, 255);
  const userId = textOf(launch.userId, 255);
  if (!ags || !contextId || !userId) return undefined;
  const { scope } = ags;
  const lineItem = isServiceUrl(ags.lineItem, loopbackHttp) ? ags.lineItem : undefined;
  const lineItems = isServiceUrl(ags.lineItems, loopbackHttp) ? ags.lineItems : undefined;
  if (!lineItem && !lineItems) return undefined;
  const resourceLinkId = textOf(launch.resourceLink?.id, 255);
  const title = textOf(launch.resourceLink?.title, 255);
  return {
    course: { issuer: launch.registration.issuer, clientId: launch.registration.clientId, deploymentId: launch.deploymentId, contextId },
    userId,
    ...(resourceLinkId ? { resourceLinkId } : {}),
    ...(title ? { title } : {}),
    ags: { ...(lineItem ? { lineItem } : {}), ...(lineItems ? { lineItems } : {}), scope },
    launchedAt: now.toISOString(),
  };
}
