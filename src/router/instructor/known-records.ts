/**
 * With many organizations, an id is only ever looked up for the organization that
 * created (or listed) it: a handler runs only when every record id the request names,
 * in its path or as the body's `classId`, is known to the store under the request's
 * organization. Anything else is a 404 with nothing sent upstream, whatever the platform
 * would have answered for the organization's key (DESIGN.md "v2").
 *
 * A single-organization router does not use it: there every record the key can reach is
 * the organization's, and records made outside the router stay reachable as before.
 */
import type { Request } from "express";
import type { ExamKind, OralStore } from "../../store/types.js";
import type { OrganizationIdOf } from "../shared/request-organization.js";
import { sendProblem } from "../shared/problem.js";
import type { Handler } from "../shared/instructor-http.js";

/** Which store lookup proves a path parameter's record is the organization's. */
const LOOKUPS: Record<string, (store: OralStore, org: string, id: string) => Promise<unknown>> = {
  courseId: (store, org, id) => store.getCourse(org, id),
  classId: (store, org, id) => store.getClass(org, id),
  examId: (store, org, id) => examOfKind(store, org, id, "oral"),
  roleplayId: (store, org, id) => examOfKind(store, org, id, "roleplay"),
};

async function examOfKind(store: OralStore, org: string, id: string, kind: ExamKind): Promise<unknown> {
  const record = await store.getAssessment(org, id);
  return record && (record.kind ?? "oral") === kind ? record : undefined;
}

export function knownRecordsOnly(store: OralStore, organizationIdOf: OrganizationIdOf, handler: Handler): Handler {
  return async (req, res) => {
    const org = organizationIdOf(req);
    for (const [name, id] of idsOf(req)) {
      const lookup = LOOKUPS[name];
      if (lookup && (await lookup(store, org, id)) === undefined) {
        sendProblem(res, { status: 404, code: "not_found", title: "Not found", detail: `No ${name.replace(/Id$/, "")} ${id} is known to this organization.` });
        return;
      }
    }
    await handler(req, res);
  };
}

/** The record ids a request names: its path parameters, and a body's `classId` (a create or a move). */
function idsOf(req: Request): [string, string][] {
  const ids = Object.entries(req.params as Record<string, string>);
  const classId = (req.body as { classId?: unknown } | undefined)?.classId;
  if (typeof classId === "string" && req.params.classId === undefined) ids.push(["classId", classId]);
  return ids;
}
