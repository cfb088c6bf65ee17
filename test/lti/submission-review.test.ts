/**
 * Submission Review (`LtiSubmissionReviewRequest`, issue 44.3) over real HTTP: an exam
 * placed by Deep Linking (its line item asks for Submission Review), a learner who reached
 * the exam and came back; the LMS emulator's gradebook "View submission" sends the review
 * launch. The course's instructor sees the learner's record (launches, return time, what
 * the gradebook was told); the learner sees their own; another learner, or a learner of
 * another course, gets a page saying they cannot.
 */
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { followToExam, launchFromCourse, placeExam, startLtiBench, type LtiBench } from "../support/lti.js";

const L = "https://purl.imsglobal.org/spec/lti/claim/";
let bench: LtiBench;
let linkId: string;
let examName: string;

beforeAll(async () => {
  bench = await startLtiBench({ gradebook: { pollMs: 50, firstRetryMs: 100, maxRetryMs: 400 } });
  linkId = await placeExam(bench, bench.examId);
  const launched = await launchFromCourse(bench, "student-1", linkId);
  const { opened } = await followToExam(launched);
  expect(opened.status).toBe(303);
  const mark = (opened.headers["set-cookie"] as unknown as string[]).find((c) => c.startsWith("eoa_lti_return="))!.split(";")[0]!;
  expect((await request(bench.stack.app.url).get("/oral/lti/return").set("Cookie", mark)).status).toBe(200);
  await vi.waitFor(() => expect(bench.lms.scores.filter((s) => s.userId === "student-1").map((s) => s.activityProgress)).toEqual(["Started", "Submitted"]), { timeout: 20_000, interval: 50 });
  examName = /<h1>([^<]+)<\/h1>/.exec((await launchFromCourse(bench, "instructor-1", linkId)).launch.text)![1]!;
});
afterAll(() => bench?.close());

/** The gradebook's "View submission" for `userId`'s cell: the review's id, as the LMS's redirect names it. */
async function viewSubmission(userId: string): Promise<string> {
  const book = await request(bench.lms.url).get("/gradebook");
  const href = new RegExp(`<tr data-user="${userId}">.*?<a class="review" href="([^"]+)"`).exec(book.text)?.[1];
  expect(href, "the gradebook offers View submission").toBeDefined();
  const opened = await request(bench.lms.url).get(href!.replace(/&amp;/g, "&"));
  expect(opened.status).toBe(303);
  return decodeURIComponent(/\/course\/([^?]+)/.exec(opened.headers.location!)![1]!);
}

describe("Submission Review", () => {
  it("the placed exam's line item asks for Submission Review at the tool's launch URL", () => {
    const back = bench.lms.deepLinkReturns.at(-1)!;
    if (!back.ok) throw new Error(back.error);
    const items = back.claims["https://purl.imsglobal.org/spec/lti-dl/claim/content_items"] as Record<string, unknown>[];
    expect(items[0]).toMatchObject({ lineItem: { submissionReview: { url: `${bench.stack.app.url}/oral/lti/launch`, reviewableStatus: expect.arrayContaining(["Submitted"]) } } });
  });

  it("the gradebook's View submission opens the learner's record for the course's instructor", async () => {
    // The router writes its launch records off the request path: the record shows them once written.
    let answered: Awaited<ReturnType<typeof launchFromCourse>> | undefined;
    await vi.waitFor(async () => {
      answered = await launchFromCourse(bench, "instructor-1", await viewSubmission("student-1"));
      expect(answered.launch.text).toMatch(/id="launch-count">[1-9]/);
    }, { timeout: 15_000, interval: 500 });
    const { launch, idToken } = answered!;
    expect(JSON.parse(Buffer.from(idToken.split(".")[1]!, "base64url").toString())[`${L}message_type`]).toBe("LtiSubmissionReviewRequest");
    expect(launch.status).toBe(200);
    expect(launch.text).toContain(`<h1>${examName}: Sam Student</h1>`);
    expect(launch.text).toMatch(/id="launch-count">[1-9]/);
    expect(launch.text).not.toMatch(/id="returned">—/);
    expect(launch.text).toMatch(/Started \/ NotReady/);
    expect(launch.text).toMatch(/Submitted \/ PendingManual/);
    expect(launch.text).toContain('id="exam-record"');
  });

  it("a learner reviewing their own submission sees their own record", async () => {
    const review = bench.lms.openSubmissionReview(linkId, "student-1")!;
    const { launch } = await launchFromCourse(bench, "student-1", review);
    expect(launch.status).toBe(200);
    expect(launch.text).toContain("Your record for this exam.");
    expect(launch.text).not.toContain('id="exam-record"');
  });

  it("another learner of the course gets the refusal page, and no record", async () => {
    const review = bench.lms.openSubmissionReview(linkId, "student-1")!;
    const { launch } = await launchFromCourse(bench, "student-2", review);
    expect(launch.status).toBe(403);
    expect(launch.text).toContain("You cannot see this submission");
    expect(launch.text).not.toContain("PendingManual");
  });

  it.each(["instructor-1", "student-2"])("%s launching from another course (not linked to the exam) gets the refusal page", async (userId) => {
    const review = bench.lms.openSubmissionReview(linkId, "student-1")!;
    bench.lms.setClaims({ [`${L}context`]: { id: "course-2", label: "OTHER-201", title: "Another course" } });
    try {
      const { launch } = await launchFromCourse(bench, userId, review);
      expect(launch.status).toBe(403);
      expect(launch.text).toContain("You cannot see this submission");
      expect(launch.text).not.toContain("PendingManual");
    } finally {
      bench.lms.setClaims({});
    }
  });
});
