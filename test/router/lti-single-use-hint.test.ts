/**
 * The new-window fallback where the LMS's `lti_message_hint` works once (issue 44.4): the
 * LMS emulator's Moodle preset consumes each hint at its auth step, as Moodle does. With
 * no Platform Storage (Moodle offers none) and the state cookie blocked, the tool must not
 * offer a link replaying the login (the LMS would refuse the used hint): it tells the
 * learner to open the activity again from the course in a new window. The emulator's
 * plain preset (a reusable hint) still gets the replaying link.
 */
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLmsEmulator } from "../../src/emulator/index.js";
import { lmsSigningKey, TOOL_KEY_PEM, walkLaunch, type LtiBench } from "../support/lti.js";
import { startStack } from "../support/stack.js";

let bench: LtiBench;
beforeAll(async () => {
  const lms = await createLmsEmulator({ preset: "moodle", signingKey: await lmsSigningKey() });
  const stack = await startStack({ router: { lti: { keys: [{ kid: "tool-1", privateKey: TOOL_KEY_PEM }], registrations: [lms.registration()] } } });
  lms.registerTool(`${stack.app.url}/oral`);
  const { examId } = await stack.seedExam();
  const link = lms.addResourceLink({ title: "Cells", custom: { exam_id: examId } });
  bench = { stack, lms, examId, linkId: link.id, close: async () => { await stack.close(); await lms.close(); } };
});
afterAll(() => bench?.close());

describe("Moodle's single-use lti_message_hint, cookies blocked, no Platform Storage", () => {
  it("the emulator's Moodle preset refuses a login that replays a used hint", async () => {
    const login = new URL(bench.lms.loginUrl("student-1", bench.linkId));
    const answered = await request(login.origin).get(login.pathname + login.search);
    const auth = new URL(answered.headers.location!);
    expect((await request(auth.origin).get(auth.pathname + auth.search)).status).toBe(200);
    const again = await request(auth.origin).get(auth.pathname + auth.search);
    expect(again.status).toBe(400);
    expect(again.text).toContain("launch_no_longer_valid");
  });

  it("tells the learner to open the activity again from the course in a new window, with no link replaying the login", async () => {
    const { launch } = await walkLaunch(bench, "student-1", { withCookie: false });
    expect(launch.status).toBe(401);
    expect(launch.text).toContain("open the activity again in a new window");
    expect(launch.text).not.toContain("/lti/login?");
    expect(launch.text).not.toContain("Open in a new window</a>");
    const line = bench.stack.logger.lines.filter((l) => l.obj.event === "lti_state_cookie_missing").at(-1);
    expect(line?.obj).toMatchObject({ relogin: false, singleUseHint: true });
  });
});
