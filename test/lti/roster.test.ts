/**
 * The course roster through NRPS, over HTTP against the LMS emulator (50 members a page,
 * as Canvas): paging to the end, the bound on pages, learners and Active only, a 401.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ProblemList } from "../../src/core/configuration-error.js";
import type { Logger } from "../../src/core/logger.js";
import type { Registration } from "../../src/lti/lms/registrations.js";
import { readRoster } from "../../src/lti/services/roster.js";
import { nextLink } from "../../src/lti/shared/next-page.js";
import { createServiceAccess, ServiceAccessError, type ServiceAccess } from "../../src/lti/lms/service-access.js";
import { resolveLtiSettings } from "../../src/lti/settings/settings.js";
import { startLtiBench, TOOL_KEY_PEM, type LtiBench } from "../support/lti.js";

const quiet: Logger = { debug() {}, info() {}, warn() {}, error() {} };
let bench: LtiBench;
let registration: Registration;
let access: ServiceAccess;
let url: string;

beforeAll(async () => {
  bench = await startLtiBench();
  const problems = new ProblemList();
  const lti = resolveLtiSettings({ keys: [{ kid: "tool-1", privateKey: TOOL_KEY_PEM }], registrations: [bench.lms.registration()], allowLoopbackHttp: true }, problems)!;
  problems.throwIfAny("test");
  registration = lti.registrations.all()[0]!;
  access = createServiceAccess({ keys: lti.keys, logger: quiet, allowLoopbackHttp: true });
  url = `${bench.lms.url}/api/lti/courses/course-1/names_and_roles`;
});
afterAll(async () => bench?.close());

const member = (id: string, extra: Record<string, unknown> = {}) => ({ id, name: `M ${id}`, givenName: "M", familyName: id, email: `${id}@lms.example`, role: "Learner" as const, sourcedId: id, ...extra });

describe("NRPS roster", () => {
  it("reads a roster of 3,000 at 50 a page to its end: learners and Active only", async () => {
    bench.lms.setRoster({ size: 3_000, extra: [member("gone", { status: "Inactive" }), member("deleted", { status: "Deleted" }), member("ta", { role: "Instructor" }), member("active", { status: "Active" })] });
    try {
      const before = bench.lms.membershipCounts.pages;
      const read = await readRoster(access, registration, url, { maxPages: 200, pageSize: 100, rlid: "rl-42" });
      // 3,000 members: instructor-1, ta, 2 not Active, 2,996 learners (student-1, student-2, active, 2,993 generated).
      expect(read.learners.length).toBe(2_996);
      expect(new Set(read.learners.map((m) => m.user_id)).size).toBe(2_996);
      expect(read.learners.map((m) => m.user_id)).toContain("active");
      expect(read.learners.map((m) => m.user_id)).not.toContain("gone");
      expect(read.learners.map((m) => m.user_id)).toContain("learner-02993");
      // The role filter went to the LMS: 2,998 Learner members, 50 a page.
      expect(read.pages).toBe(60);
      expect(bench.lms.membershipCounts.pages - before).toBe(60);
      expect(bench.lms.membershipCounts.lastRlid).toBe("rl-42");
      expect(read.skipped).toBe(2);
    } finally {
      bench.lms.setRoster({ size: 150, extra: [] });
    }
  });

  it("refuses a roster with pages left after maxPages, rather than cutting it short", async () => {
    bench.lms.setRoster({ size: 600 });
    try {
      const error = await readRoster(access, registration, url, { maxPages: 5, pageSize: 50 }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ServiceAccessError);
      expect((error as ServiceAccessError).kind).toBe("bad_answer");
      expect((error as Error).message).toMatch(/more than 5 pages \(lti\.roster\.maxPages\)/);
    } finally {
      bench.lms.setRoster({ size: 150 });
    }
  });

  it("stops reading at the page where the learners pass maxLearners: 20,000 members, maxLearners 5,000", async () => {
    bench.lms.setRoster({ size: 20_000 });
    try {
      const before = bench.lms.membershipCounts.pages;
      const error = await readRoster(access, registration, url, { maxPages: 1_000, pageSize: 100, maxLearners: 5_000 }).catch((e: unknown) => e);
      expect((error as ServiceAccessError).kind).toBe("bad_answer");
      expect((error as Error).message).toMatch(/more than 5000 active learners \(prepare\.maxRoster\)/);
      // 50 a page: pages 1-100 hold learners 1-5,000; page 101 holds the 5,001st, and is the last read (not 400).
      expect(bench.lms.membershipCounts.pages - before).toBe(101);
    } finally {
      bench.lms.setRoster({ size: 150 });
    }
  });

  it("refuses a roster whose answers pass maxBytes, reading no page after", async () => {
    bench.lms.setRoster({ size: 600 });
    try {
      const before = bench.lms.membershipCounts.pages;
      // A page of 50 members is about 12 KB: the second passes 20,000.
      const error = await readRoster(access, registration, url, { maxPages: 100, pageSize: 50, maxBytes: 20_000 }).catch((e: unknown) => e);
      expect((error as Error).message).toMatch(/passed 20000 bytes at page 2 \(lti\.roster\.maxBytes\)/);
      expect(bench.lms.membershipCounts.pages - before).toBe(2);
      expect((await readRoster(access, registration, url, { maxPages: 100, pageSize: 50, maxBytes: 10_000_000 })).learners.length).toBe(599);
    } finally {
      bench.lms.setRoster({ size: 150 });
    }
  });

  it("a 401 from NRPS: one retry with a fresh token, then ServiceAccessError naming the scope", async () => {
    bench.lms.setMembershipsFault("unauthorized");
    try {
      await access.token(registration, ["https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly"]);
      const issued = bench.lms.tokenCounts.issued;
      const error = await readRoster(access, registration, url, { maxPages: 10, pageSize: 50 }).catch((e: unknown) => e);
      expect((error as ServiceAccessError).kind).toBe("refused");
      expect((error as ServiceAccessError).status).toBe(401);
      expect((error as Error).message).toMatch(/contextmembership\.readonly/);
      expect(bench.lms.tokenCounts.issued).toBe(issued + 1);
    } finally {
      bench.lms.setMembershipsFault(undefined);
    }
  });

  it("reads the next link of a Link header among other relations, resolved against the page", () => {
    expect(nextLink('<https://lms.example/m?page=1>; rel="first", <https://lms.example/m?page=3>; rel="next"', "https://lms.example/m?page=2")).toBe("https://lms.example/m?page=3");
    expect(nextLink("</m?page=2>; rel=next", "https://lms.example/m")).toBe("https://lms.example/m?page=2");
    expect(nextLink('<https://lms.example/m?page=9>; rel="last"', "https://lms.example/m")).toBeUndefined();
    expect(nextLink(undefined, "https://lms.example/m")).toBeUndefined();
  });
});
