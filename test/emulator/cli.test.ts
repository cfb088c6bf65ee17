import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";

const children: ChildProcess[] = [];
afterEach(() => {
  // SIGTERM, not SIGKILL: the CLI closes what it started.
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill("SIGTERM");
});

/**
 * The built CLI (`node dist/cli.js …`, what `npx express-oral-assessments …` runs; the
 * suite's global setup builds dist/ when it is stale), with no process in between: `npm
 * exec` dies of a forwarded SIGINT/SIGTERM itself instead of reporting the CLI's own exit
 * code, and tsx, which ran `src/cli.ts` here before, relays a signal and then kills the CLI
 * (exit 130) when the CLI has not said it got the signal within 30 ms, as on a loaded machine.
 */
const CLI = fileURLToPath(new URL("../../dist/cli.js", import.meta.url));

function runCli(args: string[]): { child: ChildProcess; output: () => string } {
  const child = spawn(process.execPath, [CLI, ...args], { cwd: process.cwd(), stdio: ["ignore", "pipe", "pipe"] });
  children.push(child);
  let out = "";
  child.stdout!.on("data", (chunk: Buffer) => (out += chunk.toString("utf8")));
  child.stderr!.on("data", (chunk: Buffer) => (out += chunk.toString("utf8")));
  return { child, output: () => out };
}

async function waitFor(output: () => string, pattern: RegExp, ms = 20_000): Promise<RegExpMatchArray> {
  const deadline = Date.now() + ms;
  for (;;) {
    const match = output().match(pattern);
    if (match) return match;
    if (Date.now() > deadline) throw new Error("the CLI did not print the expected line in time");
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("CLI: express-oral-assessments emulator", () => {
  it("starts, prints base URL, keys, exam pattern and control URL, serves the API, and exits 0 on SIGINT", async () => {
    const { child, output } = runCli(["emulator", "--port", "0"]);
    const [, url] = await waitFor(output, /listening on (http:\/\/127\.0\.0\.1:\d+)/);
    const text = output();
    const testKey = /Test key\s+(svc_test_\S+)/.exec(text)?.[1];
    expect(testKey).toBeDefined();
    expect(text).toMatch(/Live key\s+svc_live_\S+/);
    expect(text).toContain(`${url}/exam/<examId>?__clerk_ticket=<token>`);
    expect(text).toContain(`${url}/__emulator`);

    const res = await fetch(`${url}/api/v1/dev/courses`, { method: "POST", headers: { Authorization: `Bearer ${testKey}`, "Content-Type": "application/json" }, body: JSON.stringify({ name: "From the CLI test" }) });
    expect(res.status).toBe(201);
    expect((await fetch(`${url}/__emulator/state`)).status).toBe(200);

    const exited = once(child, "exit");
    child.kill("SIGINT");
    const [code] = await exited;
    expect(code).toBe(0);
    await expect(fetch(`${url}/__emulator/state`)).rejects.toThrow();
  });

  it("exits 0 on SIGTERM too", async () => {
    const { child, output } = runCli(["emulator", "--port", "0"]);
    await waitFor(output, /listening on http/);
    const exited = once(child, "exit");
    child.kill("SIGTERM");
    expect((await exited)[0]).toBe(0);
  });

  it("with --organization (repeated): prints each organization's name, keys and exam host; each key reaches its own records", async () => {
    const { child, output } = runCli(["emulator", "--port", "0", "--organization", "north:North High", "--organization", "south:South College"]);
    const [, url] = await waitFor(output, /listening on (http:\/\/127\.0\.0\.1:\d+)/);
    await waitFor(output, /local throwaways/);
    const block = (name: string) => {
      const match = new RegExp(`${name} \\((\\w+)\\)\\s+Test key\\s+(svc_test_\\S+).*\\s+Live key\\s+(svc_live_\\S+).*\\s+Exam host\\s+(http://127\\.0\\.0\\.1:\\d+)`).exec(output());
      expect(match, `the ${name} block in:\n${output()}`).not.toBeNull();
      const [, id, testKey, liveKey, examHost] = match!;
      return { id, testKey: testKey!, liveKey, examHost: examHost! };
    };
    const north = block("North High");
    const south = block("South College");
    expect([north.id, south.id]).toEqual(["north", "south"]);
    expect(new Set([url, north.examHost, south.examHost]).size).toBe(3);
    expect(north.testKey).not.toBe(south.testKey);

    const api = (key: string, method = "GET", body?: unknown) => fetch(`${url}/api/v1/dev/courses`, {
      method, headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body),
    });
    expect((await api(north.testKey, "POST", { name: "North biology" })).status).toBe(201);
    expect(((await (await api(south.testKey)).json()) as { data: unknown[] }).data).toEqual([]);
    expect(await (await fetch(`${south.examHost}/`)).text()).toContain("South College");

    const exited = once(child, "exit");
    child.kill("SIGTERM");
    expect((await exited)[0]).toBe(0);
  });

  it("rejects --organization without ID:NAME with usage and exit code 2", async () => {
    const { child, output } = runCli(["emulator", "--port", "0", "--organization", "north"]);
    const [code] = await once(child, "exit");
    expect(code).toBe(2);
    expect(output()).toContain("--organization takes ID:NAME");
  });

  it("rejects a bad option with usage and exit code 2", async () => {
    const { child, output } = runCli(["emulator", "--port", "nope"]);
    const [code] = await once(child, "exit");
    expect(code).toBe(2);
    expect(output()).toContain("Usage: express-oral-assessments emulator");
  });
});

describe("CLI: express-oral-assessments lms", () => {
  it("starts the LMS emulator for a tool, prints its registration and the add-an-exam page, and exits 0 on SIGTERM", async () => {
    const { child, output } = runCli(["lms", "--tool", "http://127.0.0.1:9/oral", "--port", "0"]);
    const [, url] = await waitFor(output, /LMS emulator listening on (http:\/\/localhost:\d+)/);
    await waitFor(output, /Press Ctrl\+C/);
    const text = output();
    expect(text).toContain(`"issuer": "${url}"`);
    expect(text).toContain(`"authorizationUrl": "${url}/auth"`);
    expect(text).toContain("login http://127.0.0.1:9/oral/lti/login");
    const addExam = /Add an oral exam \(instructor\)\s+(\S+)/.exec(text)![1]!;
    const local = (u: string) => u.replace("//localhost:", "//127.0.0.1:");
    expect(((await (await fetch(local(`${url}/jwks`))).json()) as { keys: unknown[] }).keys).toHaveLength(1);
    const page = await fetch(local(addExam), { redirect: "manual" });
    expect(page.status).toBe(303);
    expect(page.headers.get("location")).toMatch(/^\/course\/dl-/);
    const exited = once(child, "exit");
    child.kill("SIGTERM");
    expect((await exited)[0]).toBe(0);
  });

  it("refuses to start without --tool, with usage and exit code 2", async () => {
    const { child, output } = runCli(["lms", "--port", "0"]);
    const [code] = await once(child, "exit");
    expect(code).toBe(2);
    expect(output()).toContain("--tool must be the tool's mount URL");
    expect(output()).toContain("Usage: express-oral-assessments lms");
  });
});
