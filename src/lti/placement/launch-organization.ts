/**
 * The organization an instructor's verified launch acts for (the picker, the instructor
 * page): what `organizationFor` answers for its deployment, else the router's resolver on
 * this request. A page is answered (and undefined returned) when there is none.
 */
import type { Request, Response } from "express";
import type { Logger } from "../../core/logger.js";
import type { LtiCatalog } from "./catalog.js";
import { refuse } from "../shared/refusal.js";
import type { LtiSettings } from "../settings/settings.js";
import { sendLtiPage } from "../shared/pages.js";
import type { VerifiedLaunch } from "../launch/verify-launch.js";

export async function launchOrganization(req: Request, res: Response, launch: VerifiedLaunch, deps: {
  settings: LtiSettings; catalog: LtiCatalog; logger: Logger; frameAncestors: readonly string[];
}): Promise<string | undefined> {
  const named = launch.registration.deployments.get(launch.deploymentId);
  const wanted = await deps.settings.organizationFor(named, req);
  if (wanted === null) {
    refuse(res, deps.logger, deps.frameAncestors, {
      status: 400, check: "organization", title: "This launch could not be accepted",
      forAdministrator: `Deployment ${launch.deploymentId} names organization "${named}", which this app does not know.`,
    });
    return undefined;
  }
  const org = wanted ?? (await deps.catalog.organizationIdFor(req));
  if (org === undefined) {
    deps.logger.info({ event: "lti_no_organization", deploymentId: launch.deploymentId }, "an LTI instructor launch has no organization");
    sendLtiPage(res, deps.frameAncestors, { status: 404, title: "No school for this launch", message: "This tool does not know which school this LMS link belongs to." });
  }
  return org;
}
