/**
 * What a roster read keeps (issue 43): an LMS may send each member with big claims of its
 * own, and the prepare form keeps only what a sign-in needs of each (`user_id`, `status`,
 * `roles`, names, `email`, `lis_person_sourcedid`). Five posts of *Prepare this exam for
 * the course*, one after another, each reading a roster of 4,000 learners sent with a
 * 30 KB claim each (the LMS emulator's `padBytes`: 120 MB of NRPS a read), grow the
 * process's heap (after GC) by < 50 MB; before the trim, five such posts took a process
 * from 113 to 765 MB. In a process of its own (vitest.config.ts OWN_PROCESS): a heap
 * figure. Printed as `[lti-prepare-heap] …`.
 */
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { memoryStore } from "../../src/store/memory.js";
import { launchFromCourse, startLtiBench, type LtiBench } from "../support/lti.js";
import { settledHeap } from "../support/heap.js";

const POSTS = 5;
const LEARNERS = 4_000;
const PAD = 30_000;
const BOUND = 50 * 1_048_576;

const mb = (bytes: number) => `${(bytes / 1_048_576).toFixed(1)} MB`;

let bench: LtiBench;
beforeAll(async () => {
  bench = await startLtiBench({}, { router: { store: memoryStore(), canLaunch: "any-signed-in-user", prepare: { maxRoster: 5_000 } } });
  bench.lms.setRoster({ size: LEARNERS, padBytes: PAD });
});
afterAll(async () => { await bench?.close(); });

describe("the prepare form's roster read, with big member claims", () => {
  it(`${POSTS} posts with ${LEARNERS} × ${PAD / 1000} KB members grow the heap by < 50 MB`, async () => {
    const forms = [];
    for (let i = 0; i < POSTS; i++) {
      const { launch, launchUrl, cookie } = await launchFromCourse(bench, "instructor-1", bench.linkId);
      expect(launch.status).toBe(200);
      forms.push({ form: /name="form" value="([^"]+)"/.exec(launch.text)![1]!, action: new URL("/oral/lti/prepare", launchUrl), cookie: cookie! });
    }
    const before = await settledHeap();
    const pages = bench.lms.membershipCounts.pages;
    let peak = before;
    for (const { form, action, cookie } of forms) {
      const res = await request(action.origin).post(action.pathname).type("form").set("Cookie", cookie)
        .send({ form, startAt: new Date(Date.now() + 3_600_000).toISOString(), tzOffsetMin: "0" });
      expect(res.status, res.text.slice(0, 400)).toBe(200);
      peak = Math.max(peak, process.memoryUsage().heapUsed);
    }
    const growth = (await settledHeap()) - before;
    console.log(`[lti-prepare-heap] ${POSTS} posts, ${LEARNERS} members of ${PAD / 1000} KB each (${bench.lms.membershipCounts.pages - pages} NRPS pages): heap +${mb(growth)} after GC (peak seen ${mb(peak - before)} over the start)`);
    expect(bench.lms.membershipCounts.pages - pages).toBe(POSTS * Math.ceil(LEARNERS / 50));
    expect(growth).toBeLessThan(BOUND);
  }, 600_000);
});
