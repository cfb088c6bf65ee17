/**
 * The course roster through NRPS 2.0 (Names and Role Provisioning Services): the
 * `context_memberships_url` of the launch's namesroleservice claim, read page by page
 * following `Link: <…>; rel="next"` until there is none (Canvas answers 50 a page,
 * whatever `limit` asks), with `role=Learner` and, when given, `rlid` (the members who
 * can see that resource link). Bounded: a roster whose `next` remains after `maxPages`
 * is refused, never cut short silently (a prepared roster missing its last pages would
 * look complete); so is one with more learners than can be prepared (read no further than
 * the page that passes it), or more bytes than `maxBytes` in all. Learners whose status is Active only (a missing status means Active).
 */
import { ServiceAccessError, type ServiceAccess } from "../lms/service-access.js";
import type { Registration } from "../lms/registrations.js";
import { NamesRolesProvisioningService } from "./nrps.js";
import type { RosterMember } from "../launch/roster-member.js";

const LEARNER = "http://purl.imsglobal.org/vocab/lis/v2/membership#Learner";


const KEPT_TEXT = ["status", "name", "given_name", "middle_name", "family_name", "email", "lis_person_sourcedid"] as const;
/** The most roles kept a member (an LMS lists a handful). */
const MAX_ROLES = 50;

/** The kept fields of a listed member (each a string of at most 1,024 characters, or left out). */
function keptMember(m: Record<string, unknown>, userId: string): RosterMember {
  const roles = Array.isArray(m.roles) ? m.roles.filter((r): r is string => typeof r === "string" && r.length <= 1024).slice(0, MAX_ROLES) : [];
  const kept: RosterMember = { user_id: userId, roles };
  for (const field of KEPT_TEXT) {
    const v = m[field];
    if (typeof v === "string" && v.length <= 1024) kept[field] = v;
  }
  return kept;
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

/**
 * Reads the course's active learners through the course's NRPS service (services/nrps.ts).
 * Throws ServiceAccessError (kind `bad_answer` for a malformed page, too many pages, more
 * than `maxLearners` active learners: the read stops at the page where they pass it, or
 * more than `maxBytes` of answers in all; `unsafe_url` for a next page on another origin).
 */
export async function readRoster(access: ServiceAccess, registration: Registration, url: string, options: { maxPages: number; pageSize: number; rlid?: string; maxLearners?: number; maxBytes?: number }): Promise<RosterRead> {
  const nrps = new NamesRolesProvisioningService(access, registration, url);
  const learners: RosterMember[] = [];
  const seen = new Set<string>();
  let skipped = 0;
  let pages = 0;
  const pagesRead = nrps.memberPages({ role: LEARNER, limit: options.pageSize, ...(options.rlid ? { rlid: options.rlid } : {}) }, {
    maxPages: options.maxPages,
    morePages: `The course roster has more than ${options.maxPages} pages (lti.roster.maxPages): nothing was prepared. Raise lti.roster.maxPages if the course is that large.`,
    ...(options.maxBytes !== undefined ? { maxBytes: options.maxBytes, tooLarge: (page: number) => `The course roster's answers passed ${options.maxBytes} bytes at page ${page} (lti.roster.maxBytes): nothing was prepared.` } : {}),
  });
  for await (const { members, page, status } of pagesRead) {
    pages = page;
    if (!Array.isArray(members)) throw new ServiceAccessError("bad_answer", `The LMS's roster page ${page} has no members array.`, status);
    for (const listed of members as unknown[]) {
      const m = (listed !== null && typeof listed === "object" ? listed : {}) as Record<string, unknown>;
      const userId = m.user_id;
      if (typeof userId !== "string" || userId === "" || userId.length > 1024 || seen.has(userId)) continue;
      seen.add(userId);
      const member = keptMember(m, userId);
      // The role filter is a request: an LMS that ignores it still lists instructors.
      if (isLearner(member) && (member.status === undefined || member.status === "Active")) learners.push(member);
      else skipped += 1;
    }
    if (options.maxLearners !== undefined && learners.length > options.maxLearners) {
      throw new ServiceAccessError("bad_answer", `The course has more than ${options.maxLearners} active learners (prepare.maxRoster): the roster was not read further, and nothing was prepared.`);
    }
  }
  return { learners, skipped, pages };
}
