/**
 * An LTI exam link whose sign-in is slow: the router's waiting page refreshes to the link
 * itself (`/lti/open/…?wait=`), whose route reads the student back from the fleet's store
 * and hands it to the launch again, so the student reaches the exam in the same browser;
 * never to `/launch/:examId`, where an LMS learner is nobody (no `req.user`).
 */
import request from "supertest";
import { afterAll, beforeAll, expect, it } from "vitest";
import { linkCourse, linkOf, startLtiBench, walkLaunch, type LtiBench } from "../support/lti.js";

let bench: LtiBench;
beforeAll(async () => {
  bench = await startLtiBench({}, { router: { waitingPageAfterMs: 0 } });
  await linkCourse(bench);
});
afterAll(async () => { await bench.close(); });

it("a slow sign-in's waiting page refreshes to the exam link, which resumes there to the exam with one sign-in call", async () => {
  const { launch } = await walkLaunch(bench, "student-1");
  const link = linkOf(launch.text)!;
  expect(link).toMatch(/\/oral\/lti\/open\//);
  const track = bench.stack.track();
  bench.stack.emulator.setLatency({ fixedMs: 400 });
  try {
    const first = await request(bench.stack.app.url).get(link);
    expect(first.status).toBe(202);
    const cookie = (first.headers["set-cookie"] as unknown as string[])[0]!.split(";")[0]!;
    let refresh = /url=(.+)$/.exec(String(first.headers.refresh))?.[1];
    expect(refresh).toMatch(new RegExp(`^${link.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\?wait=[\\w-]+$`));
    // Follow the page's refreshes, as the browser would, until the launch answers otherwise
    // (polled for up to 20 s, a little apart: on a loaded machine the sign-in takes its time).
    let answer = first;
    for (const deadline = Date.now() + 20_000; answer.status === 202 && Date.now() < deadline;) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      answer = await request(bench.stack.app.url).get(refresh!).set("Cookie", cookie);
      if (answer.status === 202) refresh = /url=(.+)$/.exec(String(answer.headers.refresh))?.[1] ?? refresh;
    }
    expect(answer.status).toBe(303);
    expect(answer.headers.location).toContain(`/exam/${bench.examId}?__clerk_ticket=`);
    const signIns = track().filter((r) => r.path.includes("sign-in-token"));
    expect(signIns).toHaveLength(1);
    expect(JSON.stringify(signIns[0])).toContain("sam@lms.example");
  } finally {
    bench.stack.emulator.setLatency({ fixedMs: 0 });
  }
});
