/**
 * An LTI test bench: the platform emulator, the LMS emulator on `localhost`, and the
 * session app (router at `/oral`, on 127.0.0.1) configured as the LMS's tool. `launch`
 * walks the OIDC flow over HTTP the way a browser would: login → the LMS's /auth →
 * its auto-posted id_token → the tool's /lti/launch (with or without the state cookie).
 */
import { generateKeyPairSync } from "node:crypto";
import request from "supertest";
import { createLmsEmulator, type LmsEmulator } from "../../src/emulator/index.js";
import type { LtiOptions } from "../../src/lti/options.js";
import { startStack, type Stack, type StackOptions } from "./stack.js";

export const TOOL_KEY_PEM = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ format: "pem", type: "pkcs8" }).toString();

export interface LtiBench {
  stack: Stack;
  lms: LmsEmulator;
  examId: string;
  linkId: string;
  close(): Promise<void>;
}

export async function startLtiBench(lti: Partial<LtiOptions> | ((lms: LmsEmulator) => Partial<LtiOptions>) = {}, options: StackOptions = {}): Promise<LtiBench> {
  const lms = await createLmsEmulator();
  const stack = await startStack({ ...options, router: { ...options.router, lti: { keys: [{ kid: "tool-1", privateKey: TOOL_KEY_PEM }], registrations: [lms.registration()], ...(typeof lti === "function" ? lti(lms) : lti) } } });
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
  return { launch, cookie, state: fields.state! };
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

/**
 * Course binding: an instructor of the LMS course opens the link once, which links the
 * exam's class to the course (`lti.canLink`'s default), so the course's learners may
 * launch it. Throws when the instructor page did not say the link is ready.
 */
export async function linkCourse(bench: LtiBench, linkId = bench.linkId, userId = "instructor-1"): Promise<void> {
  const { launch } = await walkLaunch(bench, userId, { linkId });
  if (launch.status !== 200 || !/id="status">Ready/.test(launch.text)) throw new Error(`the instructor's launch did not link the course: ${launch.status} ${launch.text.slice(0, 400)}`);
}
