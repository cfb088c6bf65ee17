/**
 * The gradebook tests' set-up: the tool (the session app with `lti`, over real HTTP) registered with an LMS
 * emulator, and a learner who launches from the course and reaches the exam, carrying the return mark.
 */
import { decodeJwt } from "jose";
import { expect } from "vitest";
import type { LmsEmulator } from "../../../src/emulator/index.js";
import type { LtiOptions } from "../../../src/lti/options/options.js";
import { DASHBOARD_EXAMS_LINKABLE, followToExam, launchFromCourse, TOOL_KEY_PEM } from "../../support/lti.js";
import { startStack, type Stack, type StackOptions } from "../../support/stack.js";

/** The outbox looks every 50 ms and retries within 400 ms: a test waits for it, never the other way round. */
export const FAST_GRADEBOOK = { pollMs: 50, firstRetryMs: 100, maxRetryMs: 400 };

export interface ToolOptions extends StackOptions {
  /** `lti.gradebook` (default FAST_GRADEBOOK). */
  gradebook?: LtiOptions["gradebook"];
  /** The AGS scopes the LMS grants (default: what the tool asks for). */
  scopes?: readonly string[];
}

/** The tool for `lms`, registered with it. */
export async function toolFor(lms: LmsEmulator, { gradebook = FAST_GRADEBOOK, scopes, ...options }: ToolOptions = {}): Promise<Stack> {
  const stack = await startStack({
    ...options,
    router: { ...options.router, lti: { keys: [{ kid: "tool-1", privateKey: TOOL_KEY_PEM }], registrations: [lms.registration()], allowLoopbackHttp: true, canLink: DASHBOARD_EXAMS_LINKABLE, emailStandIn: { domain: "lms.invalid" }, gradebook } },
  });
  lms.registerTool(`${stack.app.url}/oral`, scopes ? { scopes } : {});
  return stack;
}

/** `userId` clicks the link and follows it to the exam page: their LMS user id, the return mark cookie (`name=value`) and its Set-Cookie line. */
export async function reachExam(lms: LmsEmulator, linkId: string, userId = "student-1") {
  const launched = await launchFromCourse({ lms }, userId, linkId);
  const { opened } = await followToExam(launched);
  expect(opened.status, opened.text).toBe(303);
  const markAttributes = (opened.headers["set-cookie"] as unknown as string[] | undefined)?.find((c) => c.startsWith("eoa_lti_return="));
  return { sub: String(decodeJwt(launched.idToken).sub), mark: markAttributes?.split(";")[0], markAttributes };
}
