/**
 * The launch route's HTML pages, over HTTP: every page kind links back to `homeUrl`; the
 * built-in pages carry a strict CSP whose style hash matches their inline style, and
 * nosniff; an integrator's `renderPage` gets the page as data and draws it in its own
 * layout; a layout that throws, rejects, never answers or cannot find its view falls
 * back to the built-in page; injected markup stays text.
 */
import { createHash } from "node:crypto";
import { request as httpRequest } from "node:http";
import type { Request, Response } from "express";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Emulator } from "../../src/emulator/index.js";
import type { OralAssessmentsOptions, RouterPage } from "../../src/index.js";
import { startTestEmulator } from "../support/emulator.js";
import { readHtml } from "../support/html-page.js";
import { startStack, type Stack } from "../support/stack.js";

/** A way back with markup in it: it must come out as the link's exact href, never as an element. */
const BUILT_IN_HOME = `/portal?from=exam&q="><script>alert(1)</script>`;
const LAYOUT_HOME = "https://portal.example.edu/home";

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The integrator's layout: the app's own header around the router's page. */
function layout(page: RouterPage): string {
  const links = page.links.map((l) => `<a href="${esc(l.href)}">${esc(l.text)}</a>`).join(" ");
  return `<!doctype html><html><head><title>${esc(page.title)} · Portal</title></head>
<body><header id="site">Portal <form method="post" action="/logout"><button>Log out</button></form></header>
<main data-kind="${esc(page.kind)}"><h1>${esc(page.title)}</h1><p>${esc(page.message)}</p><nav>${links}</nav></main></body></html>`;
}

/** Every user the table needs may launch, except Bob (403); s1's roster check breaks (500). */
const canLaunch: OralAssessmentsOptions["canLaunch"] = (_req, ctx) => {
  if (ctx.student.email === "s1@school.test") throw new Error("roster service down");
  return ctx.student.email !== "bob@school.test";
};

const CLIENT = { timeoutMs: 500, maxRetries: 1, maxRetryAfterMs: 2_000 };

let emulator: Emulator;
// Every case seeds a stack of its own (~150 platform calls in a run): past the dev key's
// 60 a minute. No case here is about the platform's rate limit (the 503 is a fault).
beforeAll(async () => { emulator = await startTestEmulator({ classCapacity: 1, rateLimits: { dev: 10_000 } }); });
afterAll(async () => { await emulator.close(); });
afterEach(() => { emulator.clearFaults(); });

interface Scenario {
  name: string;
  status: number;
  kind: RouterPage["kind"];
  /** The page offers a "try again" link to the same launch first. */
  retry: boolean;
  run(stack: Stack, examId: string): Promise<{ status: number; headers: Record<string, string>; text: string }>;
}

const launch = async (stack: Stack, user: string | undefined, path: string) =>
  (user ? await stack.login(user) : stack.anonymous()).get(`/oral/launch/${path}`);

const SCENARIOS: Scenario[] = [
  { name: "signed out", status: 401, kind: "login_required", retry: false, run: (s, id) => launch(s, undefined, id) },
  { name: "not an exam link", status: 400, kind: "bad_request", retry: false, run: (s) => launch(s, "ada", "not%20an%20id") },
  { name: "a profile without e-mail", status: 400, kind: "profile_incomplete", retry: false, run: (s, id) => launch(s, "nomail", id) },
  { name: "refused by canLaunch", status: 403, kind: "forbidden", retry: false, run: (s, id) => launch(s, "bob", id) },
  { name: "an unknown exam", status: 404, kind: "not_found", retry: false, run: (s) => launch(s, "ada", "nope-123") },
  // A failed call starts the student's backoff: the page says when to try again, with a link.
  { name: "a full class", status: 409, kind: "class_full", retry: true, run: (s, id) => launch(s, "s2", id) },
  { name: "an unexpected error", status: 500, kind: "internal_error", retry: true, run: (s, id) => launch(s, "s1", id) },
  {
    name: "a platform error", status: 502, kind: "platform_failed", retry: true,
    run: (s, id) => { emulator.fault({ type: "status", status: 500, count: 5 }); return launch(s, "s4", id); },
  },
  {
    name: "a platform that hangs", status: 504, kind: "platform_timeout", retry: true,
    run: (s, id) => { emulator.fault({ type: "hang", count: 5 }); return launch(s, "s6", id); },
  },
  // Its Retry-After pauses the stack's client for 10 minutes (why every case has a stack of
  // its own). A 429 the launch can wait out within launchWaitMs is a waiting page
  // (storm/budget tests); one whose Retry-After is past it is this page at once.
  {
    name: "a busy platform", status: 503, kind: "platform_busy", retry: true,
    run: (s, id) => { emulator.fault({ type: "status", status: 429, retryAfter: 600, count: 1 }); return launch(s, "s5", id); },
  },
];

/**
 * Runs `use` on a stack of its own whose exam's single seat is taken by `s3`, so the next
 * student meets a full class, then closes it. One per case: a case leaves its mark on the
 * stack (the 503's paused client, a student's backoff), and no other case may see it.
 */
async function withPagesStack(router: Partial<OralAssessmentsOptions>, use: (stack: Stack, examId: string) => Promise<void>): Promise<void> {
  const stack = await startStack({ useEmulator: emulator, client: CLIENT, router: { canLaunch, ...router } });
  try {
    const { examId } = await stack.seedExam();
    await (await stack.login("s3")).get(`/oral/launch/${examId}`).expect(303);
    await use(stack, examId);
  } finally {
    await stack.close();
  }
}

function styleHashOf(html: string): string {
  const styles = readHtml(html).styles;
  expect(styles).toHaveLength(1);
  return `'sha256-${createHash("sha256").update(styles[0]!, "utf8").digest("base64")}'`;
}

describe("the built-in pages", () => {
  it.each(SCENARIOS)("$status ($name): a way back to homeUrl, CSP with the style's hash, nosniff", (scenario) => withPagesStack({ homeUrl: BUILT_IN_HOME }, async (stack, examId) => {
    const res = await scenario.run(stack, examId);
    expect(res.status).toBe(scenario.status);
    expect(res.headers["content-type"]).toMatch(/^text\/html/);
    expect(res.headers["cache-control"]).toBe("no-store");
    expect(res.headers["referrer-policy"]).toBe("same-origin");
    expect(res.headers["x-content-type-options"]).toBe("nosniff");
    const csp = res.headers["content-security-policy"] ?? "";
    const directives = new Map(csp.split(";").map((d) => d.trim().split(/\s+/)).map(([name, ...values]) => [name, values]));
    expect(directives.get("default-src")).toEqual(["'none'"]);
    expect(directives.get("frame-ancestors")).toEqual(["'none'"]);
    expect(directives.get("style-src")).toEqual([styleHashOf(res.text)]);
    expect(csp).not.toContain("unsafe-inline");

    const page = readHtml(res.text);
    expect(page.tags).not.toContain("script");
    expect(page.links.at(-1)).toEqual({ href: BUILT_IN_HOME, text: "Back to the home page" });
    if (scenario.retry) expect(page.links[0]?.href).toMatch(new RegExp(`^/oral/launch/${examId}`));
    expect(page.links).toHaveLength(scenario.retry ? 2 : 1);
    expect(page.headings).toEqual([page.title]);
    if (scenario.kind === "login_required") expect(page.paragraphs[0]).toMatch(/sign in/i);
    if (scenario.status === 503) expect(Number(res.headers["retry-after"])).toBeGreaterThanOrEqual(1);
  }));

  it("keeps an XSS attempt in the exam id and in the URL as text", () => withPagesStack({ homeUrl: BUILT_IN_HOME }, async (stack, examId) => {
    const attack = `"><script>alert(1)</script>`;
    const bad = await launch(stack, "ada", encodeURIComponent(attack));
    expect(bad.status).toBe(400);
    expect(readHtml(bad.text).tags).not.toContain("script");
    expect(bad.text).not.toContain("<script>");

    // The last-resort page's retry link is the raw request URL: sent unencoded here, as
    // a hand-made request can, it must still land in the href as text.
    const login = await fetch(`${stack.app.url}/login`, {
      method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ username: "s1", password: "pw-s1" }),
    });
    expect(login.status).toBe(204);
    const cookie = (login.headers.get("set-cookie") ?? "").split(";")[0]!;
    const rawPath = `/oral/launch/${examId}?q=${attack}`;
    const res = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      const { hostname, port } = new URL(stack.app.url);
      const req = httpRequest({ hostname, port, path: rawPath, headers: { cookie } }, (r) => {
        let text = "";
        r.setEncoding("utf8").on("data", (c: string) => { text += c; }).on("end", () => resolve({ status: r.statusCode ?? 0, text }));
      });
      req.on("error", reject).end();
    });
    expect(res.status).toBe(500);
    const page = readHtml(res.text);
    expect(page.tags).not.toContain("script");
    expect(page.links[0]).toEqual({ href: rawPath, text: "Try again" });
  }));
});

describe("renderPage: the pages inside the integrator's layout", () => {
  it.each(SCENARIOS)("$status ($name): the page object, drawn in the layout, with the router's safety headers but not its CSP", async (scenario) => {
    const rendered: RouterPage[] = [];
    const renderPage = (_req: Request, res: Response, page: RouterPage) => {
      rendered.push(page);
      res.send(layout(page));
    };
    await withPagesStack({ homeUrl: LAYOUT_HOME, renderPage }, async (stack, examId) => {
      const before = rendered.length;
      const res = await scenario.run(stack, examId);
      expect(res.status).toBe(scenario.status);
      expect(rendered).toHaveLength(before + 1);
      const page = rendered.at(-1)!;
      expect(page).toMatchObject({ status: scenario.status, kind: scenario.kind, title: expect.any(String), message: expect.any(String) });
      expect(page.links.at(-1)).toEqual({ href: LAYOUT_HOME, text: "Back to the home page", rel: "home" });
      if (scenario.retry) expect(page.links[0]).toMatchObject({ rel: "retry", href: expect.stringMatching(new RegExp(`^/oral/launch/${examId}`)) });
      expect(page.links).toHaveLength(scenario.retry ? 2 : 1);

      const html = readHtml(res.text);
      expect(html.attr("header", "id")).toEqual(["site"]);
      expect(html.attr("main", "data-kind")).toEqual([scenario.kind]);
      expect(html.headings).toEqual([page.title]);
      expect(html.links.map((l) => l.href)).toEqual(page.links.map((l) => l.href));
      expect(res.headers["content-security-policy"]).toBeUndefined();
      expect(res.headers["x-content-type-options"]).toBe("nosniff");
      expect(res.headers["cache-control"]).toBe("no-store");
      expect(res.headers["referrer-policy"]).toBe("same-origin");
      if (scenario.status === 503) {
        expect(page.retryAfter).toBeGreaterThanOrEqual(1);
        expect(res.headers["retry-after"]).toBe(String(page.retryAfter));
      }
    });
  });
});

describe("the waiting page", () => {
  it.each([["built-in", false], ["in a layout", true]] as const)("%s: a Refresh header, a way back, and 403 wrong_account for another account", async (_name, custom) => {
    const rendered: RouterPage[] = [];
    const renderPage = (_req: Request, res: Response, page: RouterPage) => { rendered.push(page); res.send(layout(page)); };
    const stack = await startStack({
      useEmulator: emulator,
      client: { timeoutMs: 5_000, maxRetries: 0 },
      router: { waitingPageAfterMs: 200, homeUrl: "/home", ...(custom ? { renderPage } : {}) },
    });
    try {
      const { examId } = await stack.seedExam();
      // The sign-in call hangs: the launch is held 200 ms, then gets the waiting page.
      emulator.fault({ type: "hang", count: 1 });
      const res = await launch(stack, "ada", examId);
      expect(res.status).toBe(202);
      const refresh = /^(\d+);url=(\/oral\/launch\/[^?]+\?wait=[A-Za-z0-9_-]+)$/.exec(res.headers.refresh ?? "");
      expect(refresh, res.headers.refresh).not.toBeNull();
      const html = readHtml(res.text);
      if (custom) {
        // Nobody queued before this student: "ahead" is structured data, and the page blames no crowd.
        expect(rendered[0]).toMatchObject({ kind: "waiting", status: 202, ahead: 0, refresh: { seconds: Number(refresh![1]), href: refresh![2] } });
        expect(rendered[0]?.message).toMatch(/taking a moment/);
        expect(rendered[0]?.message).not.toMatch(/many students/i);
        expect(html.metaRefresh).toBeUndefined(); // the layout emits none: the header does it
      } else {
        expect(html.metaRefresh).toBe(res.headers.refresh);
      }
      expect(html.links.at(-1)?.href).toBe("/home");

      const other = await launch(stack, "bob", refresh![2]!.slice("/oral/launch/".length));
      expect(other.status).toBe(403);
      expect(readHtml(other.text).links.at(-1)?.href).toBe("/home");
      if (custom) expect(rendered.at(-1)?.kind).toBe("wrong_account");
    } finally {
      await stack.close();
    }
  });
});

describe("a layout that fails falls back to the built-in page", () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({
      useEmulator: emulator,
      router: {
        homeUrl: "/home",
        renderPage: (req: Request, res: Response, page: RouterPage) => {
          switch (req.get("x-layout")) {
            case "throw": throw new Error("layout template broken");
            case "reject": return Promise.reject(new Error("layout data unavailable"));
            case "silent": return new Promise<void>(() => {}); // never answers
            case "missing-view":
              // A real view engine that cannot find its view: Express hands the error to `next`.
              res.app.engine("tpl", (_file, _opts, cb) => cb(null, "never"));
              return res.render("no-such-layout.tpl", { page });
            default: res.send(layout(page));
          }
        },
      },
    });
  });
  afterAll(async () => { await stack.close(); });

  it.each(["throw", "reject", "missing-view", "silent"])("when renderPage fails (%s), with the page's own status, and logs it", async (mode) => {
    const before = stack.logger.lines.length;
    const res = await stack.anonymous().get("/oral/launch/abc123").set("x-layout", mode);
    expect(res.status).toBe(401);
    expect(res.headers["content-security-policy"]).toContain("default-src 'none'");
    const page = readHtml(res.text);
    expect(page.attr("header", "id")).toEqual([]);
    expect(page.paragraphs[0]).toMatch(/sign in/i);
    expect(page.links.at(-1)?.href).toBe("/home");
    const failures = stack.logger.lines.slice(before).filter((l) => l.obj.event === "render_page_failed");
    expect(failures).toHaveLength(1);
    expect(failures[0]?.obj).toMatchObject({ kind: "login_required", status: 401 });
  }, 20_000);

  it("and a working layout on the same router still draws the page", async () => {
    const res = await stack.anonymous().get("/oral/launch/abc123").expect(401);
    expect(readHtml(res.text).attr("header", "id")).toEqual(["site"]);
  });
});
