/**
 * An LTI test bench: the platform emulator, the LMS emulator on `localhost`, and the
 * session app (router at `/oral`, on 127.0.0.1) configured as the LMS's tool. `launch`
 * walks the OIDC flow over HTTP the way a browser would: login → the LMS's /auth →
 * its auto-posted id_token → the tool's /lti/launch (with or without the state cookie).
 */
import { generateKeyPairSync, type webcrypto } from "node:crypto";
import { generateKeyPair } from "jose";
import request from "supertest";
import { createLmsEmulator, type LmsEmulator, type LmsEmulatorOptions } from "../../src/emulator/index.js";
import type { CanLink, LtiOptions } from "../../src/lti/options/options.js";
import { startStack, type Stack, type StackOptions } from "./stack.js";

export const TOOL_KEY_PEM = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ format: "pem", type: "pkcs8" }).toString();

/**
 * The benches' LMS signing keys: made as first needed, at most LMS_KEYS per worker, then
 * handed out in turn (an RSA key is 0.1–0.4 s of CPU, and the suite starts about a hundred
 * benches). Benches alive at once get different keys; a test whose LMSs must not accept
 * each other's tokens and that starts more than LMS_KEYS of them makes its own.
 */
const LMS_KEYS = 4;
const lmsKeys: Promise<webcrypto.CryptoKey>[] = [];
let nextLmsKey = 0;
export function lmsSigningKey(): Promise<webcrypto.CryptoKey> {
  const i = nextLmsKey++ % LMS_KEYS;
  return (lmsKeys[i] ??= generateKeyPair("RS256", { extractable: true }).then((pair) => pair.privateKey));
}

export interface LtiBench {
  stack: Stack;
  lms: LmsEmulator;
  examId: string;
  linkId: string;
  close(): Promise<void>;
}

/**
 * docs/lti.md's one-line `canLink` for a school whose instructors may link the app's
 * dashboard exams (the earlier default). The benches' exam is made through the instructor
 * API, like a dashboard's, so they set it unless the test passes its own `canLink` (or
 * `canLink: undefined`, to test the default).
 */
export const DASHBOARD_EXAMS_LINKABLE: CanLink = (_claims, { linkedTo }) => linkedTo !== "another-course";

export async function startLtiBench(lti: Partial<LtiOptions> | ((lms: LmsEmulator) => Partial<LtiOptions>) = {}, options: StackOptions = {}, users?: LmsEmulatorOptions["users"]): Promise<LtiBench> {
  const lms = await createLmsEmulator({ signingKey: await lmsSigningKey(), ...(users ? { users } : {}) });
  const stack = await startStack({ ...options, router: { ...options.router, lti: { keys: [{ kid: "tool-1", privateKey: TOOL_KEY_PEM }], registrations: [lms.registration()], allowLoopbackHttp: true, canLink: DASHBOARD_EXAMS_LINKABLE, ...(typeof lti === "function" ? lti(lms) : lti) } } });
  lms.registerTool(`${stack.app.url}/oral`);
  const { examId } = await stack.seedExam();
  const link = lms.addResourceLink({ title: "Cells", custom: { exam_id: examId } });
  return { stack, lms, examId, linkId: link.id, close: async () => { await stack.close(); await lms.close(); } };
}

export interface Walked {
  /** The tool's answer to the launch post. */
  launch: request.Response;
  /** The state cookie the login set (name=value), if any. */
  cookie: string | undefined;
  state: string;
  /** The id_token the LMS posted with it. */
  idToken: string;
}

/** Login → LMS auth → launch. `withCookie: false` posts the launch as a frame whose cookie was dropped. */
export async function walkLaunch(bench: LtiBench, userId = "student-1", opts: { withCookie?: boolean; linkId?: string; login?: Record<string, string> } = {}): Promise<Walked> {
  const toolUrl = new URL(bench.lms.loginUrl(userId, opts.linkId ?? bench.linkId, opts.login));
  const login = await request(toolUrl.origin).get(toolUrl.pathname + toolUrl.search);
  if (login.status !== 302) throw new Error(`login answered ${login.status}: ${login.text.slice(0, 300)}`);
  const cookie = (login.headers["set-cookie"] as unknown as string[] | undefined)?.[0]?.split(";")[0];
  const auth = new URL(login.headers.location!);
  const authAnswer = await request(auth.origin).get(auth.pathname + auth.search);
  if (authAnswer.status !== 200) throw new Error(`LMS auth answered ${authAnswer.status}: ${authAnswer.text}`);
  const fields = formFields(authAnswer.text);
  const { lti_storage_target: _, ...post } = fields;
  const launch = await postLaunch(bench, post, opts.withCookie === false ? undefined : cookie);
  return { launch, cookie, state: fields.state!, idToken: fields.id_token! };
}

export function postLaunch(bench: LtiBench, fields: Record<string, string>, cookie?: string) {
  const r = request(bench.stack.app.url).post("/oral/lti/launch").type("form").send(fields);
  return cookie ? r.set("Cookie", cookie) : r;
}

export function formFields(html: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) out[m[1]!] = m[2]!.replace(/&#(\d+);/g, (_, c) => String.fromCharCode(Number(c)));
  return out;
}

export function linkOf(html: string): string | undefined {
  return /href="([^"]*\/lti\/open\/[^"]+)"/.exec(html)?.[1];
}

/** What a click on a course link sent and got back: the login's parameters, the id_token, and the tool's answer to the launch post. */
export interface CourseLaunch {
  login: Record<string, string>;
  /** Whether the tool's login answered the Platform Storage page (the LMS offered it) rather than a redirect. */
  platformStorage: boolean;
  idToken: string;
  launch: request.Response;
  /** The URL the launch was posted to (relative links of its answer resolve against it). */
  launchUrl: string;
  /** The browser's LTI cookie (name=value) the login set, if it set one: what this browser sends with its next posts. */
  cookie: string | undefined;
}

const htmlDecode = (text: string) => text.replace(/&#(\d+);/g, (_, c) => String.fromCharCode(Number(c))).replace(/&amp;/g, "&");

async function getUrl(url: string, cookie?: string) {
  const u = new URL(url);
  const r = request(u.origin).get(u.pathname + u.search);
  return cookie ? r.set("Cookie", cookie) : r;
}

/**
 * A click on link `linkId` as `userId` in the LMS, as a browser with cookies walks it: the
 * LMS's frame document auto-posts the login (with the preset's parameters) to the tool,
 * which answers a redirect (or, when the LMS offers Platform Storage, a page whose
 * *Continue* link goes on) to the LMS's authorization endpoint, whose page auto-posts the
 * id_token to the tool's launch with the login's state cookie.
 */
export async function launchFromCourse(bench: { lms: LmsEmulator }, userId: string, linkId: string): Promise<CourseLaunch> {
  const frameUrl = `${bench.lms.url}/launch/${encodeURIComponent(linkId)}?user=${encodeURIComponent(userId)}`;
  const frame = await getUrl(frameUrl);
  if (frame.status !== 200) throw new Error(`the LMS's launch frame answered ${frame.status}: ${frame.text}`);
  const loginAction = htmlDecode(/<form[^>]*action="([^"]+)"/.exec(frame.text)?.[1] ?? "");
  const login = formFields(frame.text);
  const at = new URL(loginAction);
  const loggedIn = await request(at.origin).post(at.pathname).type("form").send(login);
  const cookie = (loggedIn.headers["set-cookie"] as unknown as string[] | undefined)?.[0]?.split(";")[0];
  const next = loggedIn.status === 302 ? loggedIn.headers.location : /id="next" href="([^"]+)"/.exec(loggedIn.text)?.[1];
  if (!next) throw new Error(`the tool's login answered ${loggedIn.status}: ${loggedIn.text.slice(0, 300)}`);
  const auth = await getUrl(htmlDecode(next));
  if (auth.status !== 200) throw new Error(`LMS auth answered ${auth.status}: ${auth.text}`);
  const launchUrl = htmlDecode(/<form[^>]*action="([^"]+)"/.exec(auth.text)?.[1] ?? "");
  const fields = formFields(auth.text);
  const to = new URL(launchUrl);
  const post = request(to.origin).post(to.pathname).type("form").send(fields);
  const launch = await (cookie ? post.set("Cookie", cookie) : post);
  return { login, platformStorage: loggedIn.status === 200, idToken: fields.id_token!, launch, launchUrl, cookie };
}

/**
 * The instructor places exam `examId` in the course through Deep Linking (*Add an oral
 * exam* → the tool's picker → its signed response posted back to the LMS), as course
 * binding requires before a learner's launch; answers the placed link's id.
 */
export async function placeExam(bench: { lms: LmsEmulator }, examId: string, instructor = "instructor-1"): Promise<string> {
  const request_ = bench.lms.openDeepLinking({});
  const { launch, launchUrl } = await launchFromCourse(bench, instructor, request_);
  if (launch.status !== 200) throw new Error(`the instructor's deep-linking launch answered ${launch.status}: ${launch.text.slice(0, 600)}`);
  const pick = /name="pick" value="([^"]+)"/.exec(launch.text)?.[1];
  const action = new URL(htmlDecode(/<form method="post" action="([^"]+)"/.exec(launch.text)?.[1] ?? ""), launchUrl);
  const chosen = await request(action.origin).post(action.pathname).type("form").send({ pick, examId });
  if (chosen.status !== 200) throw new Error(`the pick answered ${chosen.status}: ${chosen.text.slice(0, 300)}`);
  const back = new URL(htmlDecode(/<form[^>]*action="([^"]+)"/.exec(chosen.text)?.[1] ?? ""));
  const returned = await request(back.origin).post(back.pathname).type("form").send(formFields(chosen.text));
  const last = bench.lms.deepLinkReturns.at(-1);
  if (returned.status !== 200 || !last?.ok) throw new Error(`the LMS refused the deep-linking response: ${returned.text}`);
  return last.links[0]!.id;
}

/**
 * A learner's launch answer to the exam page: the framed page's *Open the exam* link (or
 * the window launch's redirect), the single-use link's redirect to the exam host, and
 * the exam page itself. Answers each hop, for assertions.
 */
export async function followToExam(launch: CourseLaunch) {
  const href = launch.launch.status === 303 ? launch.launch.headers.location : linkOf(launch.launch.text);
  if (!href) throw new Error(`the launch offered no exam link (${launch.launch.status}): ${launch.launch.text.slice(0, 600)}`);
  const opened = await getUrl(new URL(htmlDecode(href), launch.launchUrl).href);
  if (opened.status !== 303) return { opened, examUrl: undefined, page: undefined };
  const examUrl = new URL(opened.headers.location!);
  return { opened, examUrl, page: await getUrl(examUrl.href) };
}

/**
 * Course binding: an instructor of the LMS course opens the link once, which links the
 * exam's class to the course (where `lti.canLink` allows: DASHBOARD_EXAMS_LINKABLE), so the course's learners may
 * launch it. Throws when the instructor page did not say the link is ready.
 */
export async function linkCourse(bench: LtiBench, linkId = bench.linkId, userId = "instructor-1"): Promise<void> {
  const { launch } = await walkLaunch(bench, userId, { linkId });
  if (launch.status !== 200 || !/id="status">Ready/.test(launch.text)) {
    const refused = bench.stack.logger.lines.filter((l) => l.obj.event === "lti_refused").map((l) => String(l.obj.check));
    throw new Error(`the instructor's launch did not link the course: ${launch.status} (refused checks: ${refused.join(", ") || "none"}) ${launch.text.slice(0, 400)}`);
  }
}
