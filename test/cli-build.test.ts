/**
 * The `express-oral-assessments emulator` command as a newcomer runs it (dist/cli.js, built
 * by global-setup, is what both `npx express-oral-assessments emulator` and
 * `npm run emulator` start): it prints a working base URL and a test key, and stops
 * cleanly on SIGTERM. test/emulator/cli.test.ts covers the options, from the source.
 */
import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";

describe("express-oral-assessments emulator, as built", () => {
  it("listens on the port it prints, accepts the test key it prints, exits 0 on SIGTERM", async () => {
    const child = spawn(process.execPath, ["dist/cli.js", "emulator", "--port", "0"], {
      cwd: process.cwd(),
      env: { PATH: process.env.PATH ?? "" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => { output += chunk.toString("utf8"); });
    child.stderr.on("data", (chunk: Buffer) => { output += chunk.toString("utf8"); });
    const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
    try {
      await expect.poll(() => output.includes("Ctrl+C"), { timeout: 15_000 }).toBe(true);
      const baseUrl = /Base URL +(http:\/\/127\.0\.0\.1:\d+)/.exec(output)?.[1];
      const testKey = /Test key +(svc_test_\S+)/.exec(output)?.[1];
      expect(baseUrl, output).toBeDefined();
      expect(testKey, output).toBeDefined();
      const withKey = await fetch(`${baseUrl}/api/v1/dev/courses`, { headers: { Authorization: `Bearer ${testKey}` } });
      expect(withKey.status).toBe(200);
      const withoutKey = await fetch(`${baseUrl}/api/v1/dev/courses`);
      expect(withoutKey.status).toBe(401);
    } finally {
      child.kill("SIGTERM");
    }
    expect(await exited).toBe(0);
    expect(output).toContain("SIGTERM: stopping the emulator");
  });
});
