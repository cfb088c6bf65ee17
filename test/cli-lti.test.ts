/**
 * `express-oral-assessments lti …` (issue 27.10): activating a dynamically registered LMS
 * needs no code. Against a real SQLite file, as the app would have left it: list shows
 * the pending registration, activate makes it active, an unknown one is an error, a bad
 * command line a usage error.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runLti } from "../src/cli-lti.js";
import { localTime } from "../src/core/human-time.js";
import { sqliteStore } from "../src/store/sqlite.js";

const dir = mkdtempSync(join(tmpdir(), "eoa-cli-lti-"));
const file = join(dir, "oral.db");
afterAll(() => rmSync(dir, { recursive: true, force: true }));

class Usage extends Error {}
const usage = (m: string) => new Usage(m);
async function cli(...args: string[]): Promise<string[]> {
  const lines: string[] = [];
  await runLti(args, usage, (l) => lines.push(l));
  return lines;
}

describe("express-oral-assessments lti", () => {
  it("lists a pending registration and activates it, as the store then shows", async () => {
    const store = sqliteStore({ filename: file });
    await store.init();
    await store.putLtiRegistration({
      issuer: "https://canvas.example.edu", clientId: "10000000000123", authorizationUrl: "https://canvas.example.edu/auth", jwksUrl: "https://canvas.example.edu/jwks",
      active: false, acceptNewDeployments: true, data: { via: "dynamic_registration", openidConfiguration: "https://canvas.example.edu/config" }, createdAt: "2026-11-25T00:00:00.000Z",
    });
    await store.close();
    const listed = await cli("list", "--store", `sqlite:${file}`);
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatch(/^PENDING\s+issuer https:\/\/canvas\.example\.edu\s+client id 10000000000123/);
    // The date in the terminal's own locale and zone, to the minute, not as ISO.
    expect(listed[0]).toContain(`registered ${localTime("2026-11-25T00:00:00.000Z")}  via`);
    expect(listed[0]).not.toContain("2026-11-25T00:00");
    const done = await cli("activate", "--store", `sqlite:${file}`, "--issuer", "https://canvas.example.edu", "--client-id", "10000000000123");
    expect(done[0]).toContain("Activated");
    const after = sqliteStore({ filename: file });
    await after.init();
    expect((await after.getLtiRegistration("https://canvas.example.edu", "10000000000123"))?.active).toBe(true);
    await after.close();
    expect((await cli("list", "--store", `sqlite:${file}`))[0]).toMatch(/^active /);
  });

  it("prints what an LMS sent with its control characters escaped: a pending row cannot pass for an active one", async () => {
    const other = join(dir, "control.db");
    const store = sqliteStore({ filename: other });
    await store.init();
    // Carriage return, then an escape sequence erasing the line: a terminal would show only "active …".
    const clientId = "42\r\u001b[2Kactive   issuer https://canvas.instructure.com  client id 1\u202e";
    await store.putLtiRegistration({
      issuer: "https://lms.example.net", clientId, authorizationUrl: "https://lms.example.net/auth", jwksUrl: "https://lms.example.net/jwks",
      active: false, acceptNewDeployments: true, data: { via: "dynamic_registration", openidConfiguration: "https://lms.example.net/config\u0007" }, createdAt: "2026-11-25T00:00:00.000Z",
    });
    await store.close();
    const [line, ...rest] = await cli("list", "--store", `sqlite:${other}`);
    expect(rest).toEqual([]);
    // eslint-disable-next-line no-control-regex -- the assertion is that none is printed.
    expect(line).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202e]/);
    expect(line).toMatch(/^PENDING\s+issuer https:\/\/lms\.example\.net\s+client id 42\\u\{d\}\\u\{1b\}\[2Kactive/);
    expect(line).toContain("\\u{202e}");
    expect(line).toContain("config\\u{7}");
  });

  it("says so when there is no such registration, and refuses a bad command line", async () => {
    await expect(cli("activate", "--store", `sqlite:${file}`, "--issuer", "https://other.example", "--client-id", "1")).rejects.toThrow(/No registration/);
    await expect(cli("activate", "--store", `sqlite:${file}`)).rejects.toBeInstanceOf(Usage);
    await expect(cli("list")).rejects.toBeInstanceOf(Usage);
    await expect(cli("list", "--store", "mysql://x")).rejects.toBeInstanceOf(Usage);
    await expect(cli("launch", "--store", `sqlite:${file}`)).rejects.toBeInstanceOf(Usage);
  });
});
