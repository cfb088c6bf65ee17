/**
 * A launch's outcome as a launch record: built on the request path from what the route
 * already knows (no lookup, no await), then handed to the recorder's buffer.
 */
import type { Request } from "express";
import type { StudentIdentity } from "../../platform/schemas.js";
import type { ExamKind, LaunchServedBy, LaunchVia } from "../../store/types.js";
import type { OrganizationIdOf } from "../shared/request-organization.js";
import { launchedId } from "../shared/exam-page.js";
import type { LaunchRecorder } from "./recorder.js";

/** The route's `source` of a redirect's token, as recorded. */
const SERVED_BY: Record<string, LaunchServedBy> = {
  prepared: "prepared", on_demand: "on_demand", wait: "on_demand", shared: "coalesced", platform_host: "platform_host",
};

/** How a launch's answer served the student: only a redirect hands a token out, any other answer none. */
export function servedByOf(outcome: string, source: unknown): LaunchServedBy {
  return outcome === "redirected" ? SERVED_BY[String(source)] ?? "on_demand" : "none";
}

export type RecordLaunch = (req: Request, outcome: string, status: number, student: StudentIdentity, source: unknown) => void;

export function launchRecordOf(recorder: LaunchRecorder, organizationIdOf: OrganizationIdOf, kind: ExamKind, via: LaunchVia, instance: string | undefined): RecordLaunch {
  return (req, outcome, status, student, source) => {
    recorder.record(organizationIdOf(req), {
      at: new Date().toISOString(),
      kind,
      examId: launchedId(req.params),
      outcome,
      status,
      servedBy: servedByOf(outcome, source),
      via,
      student: { orgInternalId: student.orgInternalId, email: student.email },
      ...(instance === undefined ? {} : { instance }),
    });
  };
}
