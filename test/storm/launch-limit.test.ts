/**
 * The per-student launch limit: one signed-in student reloading a launch link cannot
 * drain the key. Only tokens issued to the student count; past the burst the launch
 * answers a 429 page saying when to try again.
 */
import { afterEach, describe, expect, it } from "vitest";
import { oralAssessments } from "../../src/index.js";
import { ConfigurationError } from "../../src/core/configuration-error.js";
import { startStormStack, type StormStack } from "./support.js";

let stack: StormStack | undefined;
afterEach(async () => {
  await stack?.close();
  stack = undefined;
});

describe("the per-student launch limit", () => {
  it("200 sequential reloads of one student's launch cost at most the burst of sign-in calls; the next student is redirected at once", async () => {
    // prod's 600/min: without the limit, 200 reloads would take a third of the key's minute.
    stack = await startStormStack();
    const exam = await stack.seedDirect();
    const before = stack.signIns().length;
    const statuses: number[] = [];
    let limited: Response | undefined;
    for (let i = 0; i < 200; i++) {
      const res = await stack.as("ada", `/oral/launch/${exam.examId}`);
      statuses.push(res.status);
      if (res.status === 429) limited ??= res;
      else await res.arrayBuffer();
    }
    // The default burst is 3: three redirects, then the 429 page, every time.
    expect(statuses.slice(0, 3)).toEqual([303, 303, 303]);
    expect(statuses.slice(3).every((s) => s === 429)).toBe(true);
    expect(stack.signIns().length - before).toBe(3);

    expect(limited!.headers.get("cache-control")).toBe("no-store");
    const retryAfter = Number(limited!.headers.get("retry-after"));
    // One more call per minute: the wait is at most a minute, and said in the page.
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    const html = await limited!.text();
    expect(html).toMatch(new RegExp(`try again in ${retryAfter} seconds?`));
    expect(html).not.toContain("signin_");

    // The key was not drained: the next student goes straight through.
    const next = await stack.as("bob", `/oral/launch/${exam.examId}`);
    expect(next.status).toBe(303);
    expect(new URL(next.headers.get("location")!).searchParams.get("__clerk_ticket")).toMatch(/^signin_/);
    expect(stack.signIns().length - before).toBe(4);
    const line = stack.logger.lines.find((l) => l.obj.outcome === "launch_limited");
    expect(line?.obj).toMatchObject({ status: 429, user: expect.any(String) });
  });

  it("counts only tokens issued: failed calls and a double click's shared call do not use up the student's share", async () => {
    stack = await startStormStack({ router: { launchLimit: { burst: 2, refillMs: 60_000 } } });
    const exam = await stack.seedDirect();
    const launch = () => stack!.as("ada", `/oral/launch/${exam.examId}`);
    // Refused by the platform twice (a 403 is not retried): no token, nothing counted.
    stack.emulator.fault({ type: "status", status: 403, count: 2, pathPrefix: "/students/sign-in-token" });
    expect((await launch()).status).toBe(502);
    expect((await launch()).status).toBe(502);
    // A double click: one call, one token, counted once.
    stack.emulator.setLatency({ fixedMs: 300 });
    const before = stack.signIns().length;
    const [a, b] = await Promise.all([launch(), launch()]);
    expect([a.status, b.status]).toEqual([303, 303]);
    expect(a.headers.get("location")).toBe(b.headers.get("location"));
    expect(stack.signIns().length - before).toBe(1);
    // The second of the burst of 2, then the limit.
    expect((await launch()).status).toBe(303);
    expect((await launch()).status).toBe(429);
    expect(stack.signIns().length - before).toBe(2);
  });

  it("is validated into the one ConfigurationError, and may not be set beside a fleet", () => {
    const base = { platform: {} as never };
    let error: unknown;
    try {
      oralAssessments({ ...base, launchLimit: { burst: 0, refillMs: -1 } });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigurationError);
    expect(String((error as Error).message)).toMatch(/launchLimit\.burst/);
    expect(String((error as Error).message)).toMatch(/launchLimit\.refillMs/);
    expect(() => oralAssessments({ ...base, fleet: {} as never })).toThrow(/fleet/);
  });
});
