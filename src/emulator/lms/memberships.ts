/**
 * The LMS emulator's Names and Role Provisioning Service (NRPS 2.0): the course's
 * members, 50 a page as Canvas answers (`limit` may ask fewer), the next page named by a
 * `Link: <…>; rel="next"` header, `role` and `rlid` filters, and a bearer token with the
 * memberships scope required (token.ts). The roster is the course's users followed by
 * generated learners up to `size` (150 by default; a test sets 3,000).
 */
import type { Request, RequestHandler, Response } from "express";
import type { LmsUser } from "./mint.js";

export const MEMBERSHIPS_SCOPE = "https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly";
export const MEMBERSHIP_MEDIA_TYPE = "application/vnd.ims.lti-nrps.v2.membershipcontainer+json";
const ROLE = "http://purl.imsglobal.org/vocab/lis/v2/membership#";
/** Canvas's page size, and its cap. */
export const NRPS_PAGE_SIZE = 50;

/** A member beyond the course's users: a status other than Active, no e-mail, … */
export interface RosterMember extends LmsUser {
  /** Missing: Active (NRPS 2.0). */
  status?: "Active" | "Inactive" | "Deleted";
}

export interface MembershipCounts {
  /** Pages answered (200). */
  pages: number;
  /** The `rlid` of the last request, if any. */
  lastRlid: string | undefined;
}

export interface MembershipSide {
  route: RequestHandler;
  /** The URL launches carry in the NRPS claim. */
  url(): string;
  /** Where the emulator mounts `route`: any course id (a preset's claim names its own, e.g. Canvas's `1`); the emulator has one course. */
  readonly path: string;
  readonly counts: MembershipCounts;
  /**
   * The course's roster: the users, then `extra`, then generated learners up to `size`
   * members. `padBytes` (default 0): each member is sent with an extra claim of that many
   * characters (`https://lms.example/claim/padding`), as an LMS that sends big custom
   * member claims: what a roster read must not keep (a test or bench setting).
   */
  setRoster(roster: { size?: number; extra?: readonly RosterMember[]; padBytes?: number }): void;
  /** `"unauthorized"`: every page answers 401, even with a fresh token (a developer key without the NRPS scope on some LMSs). */
  setFault(fault: "unauthorized" | undefined): void;
  /** The member with this id (a generated learner can launch too). */
  member(id: string): RosterMember | undefined;
}

/** A generated learner, `learner-00042`. */
export function generatedLearner(i: number): RosterMember {
  const n = String(i).padStart(5, "0");
  return { id: `learner-${n}`, name: `Learner ${n}`, givenName: "Learner", familyName: n, email: `learner-${n}@lms.example`, role: "Learner", sourcedId: `SIS-L-${n}` };
}

export function membershipSide(ctx: {
  base: () => string; users: readonly LmsUser[];
  verifyBearer: (req: Request, res: Response, scope: string) => boolean;
  context: { id: string; label: string; title: string };
}): MembershipSide {
  let size = 150;
  let padding: Record<string, string> = {};
  let extra: readonly RosterMember[] = [];
  let roster: RosterMember[] = [];
  let byId = new Map<string, RosterMember>();
  const build = () => {
    roster = [...ctx.users, ...extra];
    for (let i = 1; roster.length < size; i++) roster.push(generatedLearner(i));
    byId = new Map(roster.map((m) => [m.id, m]));
  };
  build();
  const counts: MembershipCounts = { pages: 0, lastRlid: undefined };
  const path = `/api/lti/courses/${ctx.context.id}/names_and_roles`;

  let fault: "unauthorized" | undefined;
  const route: RequestHandler = (req, res) => {
    if (fault === "unauthorized") return void res.status(401).json({ errors: [{ message: "Invalid access token" }] });
    if (!ctx.verifyBearer(req, res, MEMBERSHIPS_SCOPE)) return;
    if (!String(req.get("accept") ?? "").includes(MEMBERSHIP_MEDIA_TYPE)) {
      return void res.status(406).json({ error: `Accept must be ${MEMBERSHIP_MEDIA_TYPE}` });
    }
    const q = req.query as Record<string, string | undefined>;
    const limit = Math.min(NRPS_PAGE_SIZE, Math.max(1, Number(q.limit ?? NRPS_PAGE_SIZE) || NRPS_PAGE_SIZE));
    const page = Math.max(1, Number(q.page ?? 1) || 1);
    const role = q.role === undefined ? undefined : q.role.startsWith("http") ? q.role : `${ROLE}${q.role}`;
    counts.lastRlid = q.rlid;
    const chosen = role === undefined ? roster : roster.filter((m) => `${ROLE}${m.role}` === role);
    const slice = chosen.slice((page - 1) * limit, page * limit);
    if (page * limit < chosen.length) {
      const next = new URLSearchParams({ ...Object.fromEntries(Object.entries(q).filter(([, v]) => typeof v === "string")) as Record<string, string>, page: String(page + 1), limit: String(limit) });
      res.setHeader("Link", `<${ctx.base()}${req.path}?${next}>; rel="next"`);
    }
    counts.pages += 1;
    res.type(MEMBERSHIP_MEDIA_TYPE).send(JSON.stringify({
      id: `${ctx.base()}${req.path}`,
      context: ctx.context,
      members: slice.map((m) => ({
        ...(m.status === undefined ? {} : { status: m.status }),
        user_id: m.id, name: m.name, given_name: m.givenName, family_name: m.familyName,
        ...(m.email ? { email: m.email } : {}),
        lis_person_sourcedid: m.sourcedId,
        roles: [`${ROLE}${m.role}`],
        ...padding,
      })),
    }));
  };

  return {
    route,
    url: () => `${ctx.base()}${path}`,
    path: "/api/lti/courses/:courseId/names_and_roles",
    counts,
    setRoster(next) {
      size = next.size ?? size;
      extra = next.extra ?? extra;
      if (next.padBytes !== undefined) padding = next.padBytes > 0 ? { "https://lms.example/claim/padding": "x".repeat(next.padBytes) } : {};
      build();
    },
    member: (id) => byId.get(id),
    setFault(next) { fault = next; },
  };
}
