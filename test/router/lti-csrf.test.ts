/**
 * Login CSRF at the LTI edge, over real HTTP with the LMS emulator: a launch's state is
 * bound to the browser that logged in, and nobody else can complete it or its exam link.
 * - Platform Storage is used only when the login offered it: a launch that posts
 *   `lti_storage_target` after a login without it gets no check page and no continuation
 *   (an attacker who knows their own browser id could otherwise finish it anywhere).
 * - A check page's continuation is accepted only from that page (same origin).
 * - The value the login put in Platform Storage is removed after use.
 * - The exam link's `?wait=` URL resumes only in the browser that followed the link.
 * - A prefetch or a HEAD of the exam link answers as the launch route does, spending nothing.
 */
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formFields, linkCourse, linkOf, postLaunch, startLtiBench, type LtiBench } from "../support/lti.js";

/** The login (as the emulator's course page sends it) and the LMS's auth answer, as a browser would walk them. */
async function loginAndAuth(bench: LtiBench, userId: string, extra: Record<string, string> = {}) {
  const toolUrl = new URL(bench.lms.loginUrl(userId, bench.linkId, extra));
  const login = await request(toolUrl.origin).get(toolUrl.pathname + toolUrl.search);
  const cookie = (login.headers["set-cookie"] as unknown as string[] | undefined)?.[0]?.split(";")[0];
  // With Platform Storage the login answers a page that stores the value, then continues to the LMS.
  const next = login.status === 302 ? login.headers.location! : /id="next" href="([^"]+)"/.exec(login.text)![1]!.replace(/&amp;/g, "&").replace(/&#38;/g, "&");
  const auth = new URL(next);
  const authAnswer = await request(auth.origin).get(auth.pathname + auth.search).expect(200);
  const value = /"value":"([\w-]+)"/.exec(login.text)?.[1];
  return { login, cookie, fields: formFields(authAnswer.text), storedValue: value };
}

describe("LTI login CSRF", () => {
  let bench: LtiBench;
  beforeAll(async () => {
    bench = await startLtiBench();
    await linkCourse(bench);
  });
  afterAll(async () => { await bench.close(); });

  it("a login that offered no Platform Storage never starts it: a posted lti_storage_target gets no check page, and the attacker's own values are refused", async () => {
    // The attacker logs in in their own browser (they know their cookie's browser id)…
    const { cookie, fields } = await loginAndAuth(bench, "student-1");
    const attackerBrowserId = cookie!.split("=")[1]!;
    // …then posts the launch without the cookie, claiming Platform Storage.
    const probe = await postLaunch(bench, { id_token: fields.id_token!, state: fields.state!, lti_storage_target: "post_message_forwarding" });
    expect(probe.status).toBe(401);
    expect(probe.text).toContain("Open in a new window");
    expect(probe.text).not.toContain("lti-storage");
    const continuation = formFields(probe.text).continuation;
    expect(continuation).toBeUndefined();
    // Posting the values themselves (from a page of theirs, in the victim's browser) is refused too.
    const forged = await postLaunch(bench, { id_token: fields.id_token!, state: fields.state!, continuation: "guessed", platform_value: attackerBrowserId });
    expect(forged.status).toBe(401);
    expect(forged.text).not.toContain("Open the exam");
    expect(bench.stack.logger.lines.some((l) => l.obj.event === "lti_refused" && l.obj.check === "state_binding")).toBe(true);
  });

  it("a login that offered Platform Storage: the check page reads the value back and removes it; its continuation counts only when that page posts it (same origin)", async () => {
    const { fields, storedValue } = await loginAndAuth(bench, "student-1", { lti_storage_target: "post_message_forwarding" });
    expect(storedValue).toMatch(/^[\w-]{32}$/);
    // No cookie came back (a frame without third-party cookies): the check page.
    const check = await postLaunch(bench, { id_token: fields.id_token!, state: fields.state! });
    expect(check.status).toBe(200);
    expect(check.text).toContain('"subject":"lti.get_data"');
    // The page removes the key (a put without a value) before it posts again.
    expect(check.text).toMatch(/forget\(\);var f=/);
    const hidden = formFields(check.text);
    const back = { id_token: hidden.id_token!, state: hidden.state!, continuation: hidden.continuation!, platform_value: storedValue! };
    // The same values posted by another site's page (the attacker forwarding their own launch) are refused…
    const crossSite = await request(bench.stack.app.url).post("/oral/lti/launch").type("form").set("Sec-Fetch-Site", "cross-site").send(back);
    expect(crossSite.status).toBe(401);
    // …and so is an old browser's post naming another origin.
    const otherOrigin = await request(bench.stack.app.url).post("/oral/lti/launch").type("form").set("Origin", "https://attacker.example").send(back);
    expect(otherOrigin.status).toBe(401);
    // The check page's own post goes through.
    const own = await request(bench.stack.app.url).post("/oral/lti/launch").type("form").set("Sec-Fetch-Site", "same-origin").send(back);
    expect(own.status).toBe(200);
    expect(own.text).toContain("Open the exam");
  });

  it("a launch whose cookie came back removes the login's Platform Storage value from its answer page", async () => {
    const { login, cookie, fields } = await loginAndAuth(bench, "student-1", { lti_storage_target: "post_message_forwarding" });
    // The key the login's page stored the value under (named by the sealed state's id).
    const stored = JSON.parse(/<script type="application\/json" id="lti-storage">([^<]+)<\/script>/.exec(login.text)![1]!) as { key: string };
    expect(stored.key).toMatch(/^eoa-state-[\w-]{32}$/);
    const launch = await postLaunch(bench, { id_token: fields.id_token!, state: fields.state! }, cookie);
    expect(launch.status).toBe(200);
    expect(launch.text).toContain("Open the exam");
    const forget = /<script type="application\/json" id="lti-storage-forget">([^<]+)<\/script>/.exec(launch.text);
    expect(JSON.parse(forget![1]!)).toEqual({ target: "post_message_forwarding", origin: bench.lms.url, key: stored.key });
    expect(launch.text).toContain('subject:"lti.put_data"');
  });

  it("the Open the exam page names who will be signed in (name and e-mail), so a learner sent someone else's launch can stop", async () => {
    const { cookie, fields } = await loginAndAuth(bench, "student-2");
    const launch = await postLaunch(bench, { id_token: fields.id_token!, state: fields.state! }, cookie);
    expect(launch.status).toBe(200);
    const who = /<p id="who">([\s\S]*?)<\/p>/.exec(launch.text)?.[1];
    expect(who).toContain("<strong>Ada Student</strong>");
    expect(who).toContain("ada@lms.example");
  });

  it("the exam link's waiting URL resumes only in the browser that followed the link", async () => {
    const { cookie, fields } = await loginAndAuth(bench, "student-1");
    const launch = await postLaunch(bench, { id_token: fields.id_token!, state: fields.state! }, cookie);
    const link = linkOf(launch.text)!;
    // Followed in a fresh window: the link sets (or reuses) the browser's LTI cookie.
    const followed = await request(bench.stack.app.url).get(link).expect(303);
    const follower = (followed.headers["set-cookie"] as unknown as string[])[0]!.split(";")[0]!;
    expect(follower).toMatch(/^eoa_lti_browser=[\w-]{32}$/);
    // Someone else opening the waiting URL (copied, or read from a log) gets the "used" page, and nothing is signed in.
    const track = bench.stack.track();
    const stranger = await request(bench.stack.app.url).get(`${link}?wait=abc`);
    expect(stranger.status).toBe(410);
    const otherBrowser = await request(bench.stack.app.url).get(`${link}?wait=abc`).set("Cookie", "eoa_lti_browser=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA");
    expect(otherBrowser.status).toBe(410);
    expect(track().filter((r) => r.path.includes("sign-in-token"))).toEqual([]);
    expect(bench.stack.logger.lines.some((l) => l.obj.event === "lti_link_refused" && l.obj.why === "resumed in another browser")).toBe(true);
    // The follower's own browser resumes (the launch then answers for its wait id).
    const resumed = await request(bench.stack.app.url).get(`${link}?wait=abc`).set("Cookie", follower);
    expect(resumed.status).not.toBe(410);
  });

  it("a prefetch or HEAD of the exam link answers as the launch route does (503, 204; no-store) and spends nothing", async () => {
    const { cookie, fields } = await loginAndAuth(bench, "student-1");
    const launch = await postLaunch(bench, { id_token: fields.id_token!, state: fields.state! }, cookie);
    const link = linkOf(launch.text)!;
    const launchRoute = await request(bench.stack.app.url).get(`/oral/launch/${bench.examId}`).set("Sec-Purpose", "prefetch");
    const prefetch = await request(bench.stack.app.url).get(link).set("Sec-Purpose", "prefetch");
    expect(prefetch.status).toBe(launchRoute.status);
    expect(prefetch.status).toBe(503);
    expect(prefetch.headers["cache-control"]).toBe("no-store");
    expect(prefetch.text).toBe(launchRoute.text);
    const head = await request(bench.stack.app.url).head(link);
    expect(head.status).toBe(204);
    // The click still finds the link.
    await request(bench.stack.app.url).get(link).expect(303);
  });
});
