/**
 * The administrator pages of docs/lms/, walked against the LMS emulator's preset of each
 * LMS: the `registrations` block a page says to copy is taken from the page as written
 * (every field it lists, `tokenUrl` included, plus any other `lti` option it names), its
 * placeholders filled with what the preset shows where the page says the LMS shows it
 * (client id, deployment id, the LMS's address), the preset's own endpoints standing in
 * for the LMS's URLs. Then what the emulator models of the checklist: the instructor places
 * an exam with Deep Linking, a learner launches to the exam page, and the *Started* score
 * arrives in the LMS's gradebook, which needs the page's `tokenUrl`. Brightspace's page
 * is walked before and after its "tick Email" step; Schoology's "find the deployment id
 * from the first launch" step is walked too. The LMSs' own screens are not modelled.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { decodeJwt } from "jose";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createLmsEmulator, type LmsEmulator, type LmsPreset } from "../../src/emulator/index.js";
import type { LtiOptions } from "../../src/index.js";
import type { LtiRegistration } from "../../src/lti/options/options.js";
import { DASHBOARD_EXAMS_LINKABLE, followToExam, launchFromCourse, placeExam, TOOL_KEY_PEM } from "../support/lti.js";
import { startStack, type Stack } from "../support/stack.js";

const docs = join(import.meta.dirname, "..", "..", "docs", "lms");
const PAGES: { page: string; preset: Exclude<LmsPreset, "emulator"> }[] = [
  { page: "canvas.md", preset: "canvas" },
  { page: "moodle.md", preset: "moodle" },
  { page: "brightspace.md", preset: "brightspace" },
  { page: "blackboard.md", preset: "blackboard" },
  { page: "schoology.md", preset: "schoology" },
  { page: "open-edx.md", preset: "openedx" },
];
const URL_FIELDS = ["authorizationUrl", "jwksUrl", "tokenUrl"] as const;
const FAST = { pollMs: 50, firstRetryMs: 100, maxRetryMs: 400 };

/** The text of the `## heading` section of a markdown page. */
function section(markdown: string, heading: string): string {
  const start = markdown.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`no "## ${heading}" section`);
  const end = markdown.indexOf("\n## ", start + heading.length + 4);
  return markdown.slice(start, end < 0 ? undefined : end);
}

/** The page's `lti` options to copy: its one js block, as a reader pastes it inside `lti: { … }`. */
function copiedOptions(markdown: string): Record<string, unknown> {
  const block = /```js\n([\s\S]*?)```/.exec(section(markdown, "Copy back into `registrations`"))?.[1];
  if (!block) throw new Error("no js block to copy");
  return new Function(`return {${block}};`)() as Record<string, unknown>;
}

/** What the preset shows in the places each page names (the page's placeholders). */
function shownBy(lms: LmsEmulator): Record<string, string> {
  return {
    "<Client ID>": lms.clientId, "<Client Id>": lms.clientId, "<Application ID>": lms.clientId,
    "<Deployment ID>": lms.deploymentId, "<Deployment Id>": lms.deploymentId,
    // The self-hosted LMSs' address (Moodle's wwwroot, Brightspace's tenant, Open edX's root): their issuer.
    "<wwwroot>": lms.issuer, "<tenant>": lms.issuer, "<lms>": lms.issuer,
  };
}

function fill(value: string, shown: Record<string, string>): string {
  return value.replace(/<[^<>]+>/g, (placeholder) => shown[placeholder] ?? placeholder);
}

/** The registration a reader of the page ends with, on this emulated LMS. */
function registrationFrom(copied: Record<string, unknown>, lms: LmsEmulator): LtiRegistration {
  const [written] = copied.registrations as Record<string, unknown>[];
  const shown = shownBy(lms);
  const registration = {
    issuer: fill(String(written!.issuer), shown),
    clientId: fill(String(written!.clientId), shown),
    deployments: (written!.deployments as string[]).map((id) => fill(id, shown)),
  } as LtiRegistration;
  for (const field of URL_FIELDS) {
    // The page must name each endpoint; the emulator's own endpoint stands in for the LMS's.
    expect(written![field], field).toMatch(/^(https:\/\/|<)/);
    registration[field] = lms.registration()[field];
  }
  return registration;
}

describe.each(PAGES)("docs/lms/$page", ({ page, preset }) => {
  const markdown = readFileSync(join(docs, page), "utf8");
  let lms: LmsEmulator | undefined;
  let stack: Stack | undefined;
  afterEach(async () => {
    await stack?.close();
    await lms?.close();
    stack = undefined;
    lms = undefined;
  });

  async function toolFromPage() {
    lms = await createLmsEmulator({ preset });
    const { registrations: _written, ...otherOptions } = copiedOptions(markdown);
    // The exam is made through the instructor API (a dashboard's exam): placing it in an LMS
    // course takes docs/lti.md's one-line canLink for dashboard exams.
    const lti = { keys: [{ kid: "tool-1", privateKey: TOOL_KEY_PEM }], canLink: DASHBOARD_EXAMS_LINKABLE, ...otherOptions, registrations: [registrationFrom(copiedOptions(markdown), lms)], gradebook: FAST,
      // The emulator is plain http on localhost: its gradebook gets the token only with the development option.
      allowLoopbackHttp: true } as LtiOptions;
    stack = await startStack({ router: { lti } });
    lms.registerTool(`${stack.app.url}/oral`);
    return { lms, stack };
  }

  it("is a numbered checklist with the values to copy, tokenUrl among them", () => {
    const steps = section(markdown, "Checklist").split("\n").filter((line) => /^\d+\. /.test(line));
    expect(steps.length).toBeGreaterThanOrEqual(5);
    const [registration] = copiedOptions(markdown).registrations as Record<string, unknown>[];
    expect(Object.keys(registration!).sort()).toEqual(["authorizationUrl", "clientId", "deployments", "issuer", "jwksUrl", "tokenUrl"]);
    // The table says where the LMS shows each field, tokenUrl's row included.
    expect(section(markdown, "Copy back into `registrations`")).toMatch(/\| `tokenUrl` \| .+ \|/);
  });

  it(`followed on the emulator's ${preset} preset: the exam placed by Deep Linking, a learner on the exam page, Started in the LMS gradebook`, async () => {
    const { lms, stack } = await toolFromPage();
    const { examId } = await stack.seedExam();
    const linkId = await placeExam({ lms }, examId);
    if (preset === "brightspace") {
      // Until the deployment's Security Settings send the e-mail, the launch is refused, naming the setting.
      const hidden = await launchFromCourse({ lms }, "student-1", linkId);
      expect(hidden.launch.status).toBe(400);
      expect(hidden.launch.text).toContain("Security Settings");
      const step = section(markdown, "Checklist").split("\n").find((line) => line.includes("**Security Settings**"));
      expect(step).toMatch(/\*\*Email\*\*/);
      lms.setClaims({ email: "sam.student@school.example" }); // the step, as the LMS then sends it
    }
    const launched = await launchFromCourse({ lms }, "student-1", linkId);
    const { opened, page: examPage } = await followToExam(launched);
    expect(opened.status, opened.text).toBe(303);
    expect(examPage!.text).toContain("Signed in as Sam Student");
    const sub = String(decodeJwt(launched.idToken).sub);
    await vi.waitFor(() => expect(lms.scores.filter((s) => s.userId === sub && s.activityProgress === "Started")).toHaveLength(1), { timeout: 20_000, interval: 50 });
    expect(lms.tokenCounts.issued).toBeGreaterThanOrEqual(1);
  });
});

describe("docs/lms/schoology.md step 6: the deployment id from the first launch", () => {
  it("a registration with a placeholder deployment gets the refusal page naming the deployment id Schoology sent", async () => {
    const markdown = readFileSync(join(docs, "schoology.md"), "utf8");
    expect(section(markdown, "Checklist")).toMatch(/refusal page\s+for the LMS administrator names the deployment id/);
    const lms = await createLmsEmulator({ preset: "schoology" });
    const registration = { ...registrationFrom(copiedOptions(markdown), lms), deployments: ["placeholder"] };
    const stack = await startStack({ router: { lti: { keys: [{ kid: "tool-1", privateKey: TOOL_KEY_PEM }], registrations: [registration] } } });
    try {
      lms.registerTool(`${stack.app.url}/oral`);
      const link = lms.addResourceLink({ title: "Exam", custom: { exam_id: "exam_1" } });
      const { launch } = await launchFromCourse({ lms }, "student-1", link.id);
      expect(launch.status).toBe(400);
      expect(launch.text).toContain(lms.deploymentId);
    } finally {
      await stack.close();
      await lms.close();
    }
  });
});
