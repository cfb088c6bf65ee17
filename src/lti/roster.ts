/**
 * The course roster through NRPS 2.0 (Names and Role Provisioning Services): the
 * `context_memberships_url` of the launch's namesroleservice claim, read page by page
 * following `Link: <…>; rel="next"` until there is none (Canvas answers 50 a page,
 * whatever `limit` asks), with `role=Learner` and, when given, `rlid` (the members who
 * can see that resource link). Bounded: a roster whose `next` remains after `maxPages`
 * is refused, never cut short silently (a prepared roster missing its last pages would
 * look complete). Learners whose status is Active only (a missing status means Active).
 */
import { nextPageOn } from "./next-page.js";
import { LTI_SCOPES, ServiceAccessError, type ServiceAccess } from "./service-access.js";
import type { Registration } from "./registrations.js";

export const MEMBERSHIP_MEDIA_TYPE = "application/vnd.ims.lti-nrps.v2.membershipcontainer+json";
const LEARNER = "http://purl.imsglobal.org/vocab/lis/v2/membership#Learner";

/** One member as NRPS lists it (the fields a sign-in needs; others are kept as claims). */
export interface RosterMember {
  user_id: string;
  status?: string;
  roles: string[];
  name?: string;
  given_name?: string;
  family_name?: string;
  email?: string;
  lis_person_sourcedid?: string;
  [claim: string]: unknown;
}

export interface RosterRead {
  /** Active learners, in the LMS's order. */
  learners: RosterMember[];
  /** Members listed but left out (not a learner, or not Active). */
  skipped: number;
  pages: number;
}

export function isLearner(member: Pick<RosterMember, "roles">): boolean {
  // Full URIs, or the short names some Moodle versions send.
  return Array.isArray(member.roles) && member.roles.some((r) => r === LEARNER || r === "Learner" || r === "http://purl.imsglobal.org/vocab/lis/v2/membership#Learner");
}

/** Reads the course's active learners. Throws ServiceAccessError (kind `bad_answer` for a malformed page or too many pages). */
export async function readRoster(access: ServiceAccess, registration: Registration, url: string, options: { maxPages: number; pageSize: number; rlid?: string }): Promise<RosterRead> {
  const first = new URL(url);
  first.searchParams.set("role", LEARNER);
  first.searchParams.set("limit", String(options.pageSize));
  if (options.rlid) first.searchParams.set("rlid", options.rlid);
  const learners: RosterMember[] = [];
  const seen = new Set<string>();
  let skipped = 0;
  let next: string | undefined = first.href;
  let pages = 0;
  while (next !== undefined) {
    if (pages >= options.maxPages) {
      throw new ServiceAccessError("bad_answer", `The course roster has more than ${options.maxPages} pages (lti.roster.maxPages): nothing was prepared. Raise lti.roster.maxPages if the course is that large.`);
    }
    const answer = await access.call(registration, [LTI_SCOPES.memberships], { url: next, accept: MEMBERSHIP_MEDIA_TYPE });
    pages += 1;
    const members = (answer.body as { members?: unknown } | undefined)?.members;
    if (!Array.isArray(members)) throw new ServiceAccessError("bad_answer", `The LMS's roster page ${pages} has no members array.`, answer.status);
    for (const m of members as RosterMember[]) {
      if (typeof m?.user_id !== "string" || m.user_id === "" || seen.has(m.user_id)) continue;
      seen.add(m.user_id);
      // The role filter is a request: an LMS that ignores it still lists instructors.
      if (isLearner(m) && (m.status === undefined || m.status === "Active")) learners.push(m);
      else skipped += 1;
    }
    const after = nextPageOn(first, answer.headers.link, next);
    if (typeof after === "object") {
      throw new ServiceAccessError("bad_answer", `The LMS's roster page ${pages} names a next page on another origin (${after.foreign}); it was not followed.`);
    }
    next = after;
  }
  return { learners, skipped, pages };
}
