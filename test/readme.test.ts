/**
 * The README's "Mount the router", taken from README.md as a reader copies it: the
 * JavaScript runs as pasted against the emulator (the package loaded by its name, i.e.
 * the build in dist/), it type-checks under strict with the README's `req.user`
 * declaration, and the example app mounts the router with the same options.
 */
import { spawn, execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type Emulator } from "express-oral-assessments/emulator";

const root = join(import.meta.dirname, "..");
const readme = readFileSync(join(root, "README.md"), "utf8");

/** The fenced blocks of `lang` in the README section that starts with `heading`. */
function blocks(heading: string, lang: string): string[] {
  const start = readme.indexOf(`\n${heading}\n`);
  if (start < 0) throw new Error(`README.md has no "${heading}" section`);
  const end = readme.indexOf("\n## ", start + heading.length + 2);
  const section = readme.slice(start, end < 0 ? undefined : end);
  return [...section.matchAll(new RegExp("```" + lang + "\\n([\\s\\S]*?)```", "g"))].map((m) => m[1] ?? "");
}

const mountJs = blocks("## Mount the router", "js")[0] ?? "";
const userTypes = blocks("## Mount the router", "ts")[0] ?? "";

/** The `key: value` lines of the first `oralAssessments({ … })` call in `source`. */
function optionLines(source: string): string[] {
  const start = source.indexOf("oralAssessments({");
  if (start < 0) throw new Error("no oralAssessments({ … }) call");
  const lines = source.slice(start).split("\n").slice(1);
  const end = lines.findIndex((line) => line.trim().startsWith("})"));
  return lines.slice(0, end)
    .map((line) => line.replace(/\s+\/\/.*$/, "").trim())
    .filter((line) => /^[A-Za-z]+(:|,$)/.test(line));
}

// Inside the repository, so the snippet's `import "express-oral-assessments"` resolves to
// this package by its name (package self-reference), as it would in an app that installed it.
const scratch = join(root, "test-artifacts");
let dir = "";
let emulator: Emulator;

beforeAll(async () => {
  mkdirSync(scratch, { recursive: true });
  dir = mkdtempSync(join(scratch, "readme-"));
  emulator = await startEmulator({ port: 0 });
});
afterAll(async () => {
  await emulator?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe("README: a newcomer's page", () => {
  it("is at most 170 lines: what it is, the two commands, the walk, the snippet, where to read next", () => {
    expect(readme.split("\n").length - (readme.endsWith("\n") ? 1 : 0)).toBeLessThanOrEqual(170);
    expect(readme).toContain("npm ci && npm start");
    expect(readme).toContain("npm ci && npm test");
    for (const heading of ["## Quickstart", "## A first walk through the example app", "## Mount the router", "## Where to read next"]) {
      expect(readme).toContain(`\n${heading}\n`);
    }
  });

  it("keeps benchmark figures out (they are lab notes, in docs/lab/benchmarks.md)", () => {
    expect(readme).not.toMatch(/\bp99\b|\d ms\b|load \d/);
  });
});

describe("README: Mount the router", () => {
  it("has one plain JavaScript snippet (no TypeScript non-null `!`) that defines app and the roster it uses", () => {
    expect(mountJs).toContain("const app = express();");
    expect(mountJs).toContain("const roster = ");
    expect(mountJs).not.toMatch(/\w!\.|\w!\)|\w!,/);
    expect(mountJs).toMatch(/canLaunch: /);
  });

  it("runs as pasted against the emulator: signed-out launches go to loginUrl, the instructor API answers 401", async () => {
    writeFileSync(join(dir, "app.mjs"), mountJs);
    const port = await freePort();
    const child = spawn(process.execPath, ["app.mjs"], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? "", ORAL_API_KEY: emulator.testKey, ORAL_BASE_URL: emulator.url, ORAL_EXAM_HOST: emulator.examHost, PORT: String(port) },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => { output += chunk.toString("utf8"); });
    child.stderr.on("data", (chunk: Buffer) => { output += chunk.toString("utf8"); });
    const base = `http://127.0.0.1:${port}`;
    try {
      await expect.poll(async () => (await fetch(`${base}/oral/openapi.json`).catch(() => undefined))?.status, { timeout: 15_000 }).toBe(200);
      const launch = await fetch(`${base}/oral/launch/exam_123`, { redirect: "manual" });
      expect(launch.status, output).toBe(303);
      expect(launch.headers.get("location")).toBe(`/login?returnTo=${encodeURIComponent("/oral/launch/exam_123")}`);
      const courses = await fetch(`${base}/oral/courses`);
      expect(courses.status).toBe(401);
      expect(courses.headers.get("content-type")).toMatch(/application\/problem\+json/);
    } finally {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await exited;
    }
  });

  it("stops at start with a message naming the missing setting", () => {
    writeFileSync(join(dir, "app.mjs"), mountJs);
    let message = "";
    try {
      execFileSync(process.execPath, ["app.mjs"], { cwd: dir, env: { PATH: process.env.PATH ?? "" }, stdio: "pipe", timeout: 15_000 });
    } catch (error) {
      message = String((error as { stderr?: Buffer }).stderr ?? "");
    }
    expect(message).toContain("Set ORAL_API_KEY");
  });

  it.each([
    ["without passport's types", ["node"]],
    ["with passport's types", ["node", "passport"]],
  ])("type-checks under strict (checkJs) with the README's req.user declaration, %s", (_name, types) => {
    writeFileSync(join(dir, "app.mjs"), mountJs);
    writeFileSync(join(dir, "express-user.d.ts"), userTypes);
    writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({
      compilerOptions: {
        module: "nodenext", moduleResolution: "nodenext", target: "es2022", strict: true,
        allowJs: true, checkJs: true, noEmit: true, skipLibCheck: true, types,
      },
      include: ["app.mjs", "express-user.d.ts"],
    }));
    try {
      execFileSync(process.execPath, [join(root, "node_modules", "typescript", "bin", "tsc"), "-p", "."], { cwd: dir, stdio: "pipe", timeout: 120_000 });
    } catch (error) {
      throw new Error(`tsc found problems in the README's snippet:\n${String((error as { stdout?: Buffer }).stdout ?? "")}`);
    }
  }, 150_000);

  it("is how the example app mounts the router: the same options, word for word where they are not read from the environment, the platform per school", () => {
    const app = readFileSync(join(root, "example-app", "oral-router.js"), "utf8");
    const theirs = optionLines(app);
    const ours = optionLines(mountJs);
    expect(ours.length).toBeGreaterThanOrEqual(5);
    const key = (line: string) => line.split(/[:,]/)[0];
    // The example app serves two schools: `organization` answers each request's platform
    // and exam host (as the README's paragraph after the snippet says).
    const perSchool = new Set(["platform", "examHost"]);
    expect(theirs.map(key)).toContain("organization");
    expect(readme).toMatch(/instead of one `platform` and `examHost` it passes\s+`organization: \(req\) => …`/);
    for (const line of ours) {
      if (perSchool.has(key(line)!)) expect(theirs.map(key)).not.toContain(key(line));
      else if (line.includes("process.env.")) expect(theirs.map(key)).toContain(key(line));
      else expect(theirs).toContain(line);
    }
  });
});
