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

  it("a double click's shared call counts once, and another student's launch does not count against Ada", async () => {
    stack = await startStormStack({ router: { launchLimit: { burst: 2, refillMs: 60_000 } } });
    const exam = await stack.seedDirect();
    const launch = () => stack!.as("ada", `/oral/launch/${exam.examId}`);
    stack.emulator.setLatency({ fixedMs: 300 });
    const before = stack.signIns().length;
    const [a, b] = await Promise.all([launch(), launch()]);
    expect([a.status, b.status]).toEqual([303, 303]);
    expect(a.headers.get("location")).toBe(b.headers.get("location"));
    expect(stack.signIns().length - before).toBe(1);
    expect((await stack.as("bob", `/oral/launch/${exam.examId}`)).status).toBe(303);
    // The second of Ada's burst of 2, then the limit.
    expect((await launch()).status).toBe(303);
    expect((await launch()).status).toBe(429);
    expect(stack.signIns().length - before).toBe(3);
  });

  it("a student reloading 200 times against a platform failing for them causes at most 5 sign-in calls; the page says the exam service is failing and when to try again", async () => {
    stack = await startStormStack();
    const exam = await stack.seedDirect();
    // The platform fails every sign-in of Ada's, and only hers.
    stack.emulator.fault({ type: "status", status: 500, count: 10_000, pathPrefix: "/students/sign-in-token", bodyContains: "ada@school.test" });
    const before = stack.signIns().length;
    const answers: { status: number; retryAfter: string | null; cache: string | null; html: string }[] = [];
    for (let i = 0; i < 200; i++) {
      const res = await stack.as("ada", `/oral/launch/${exam.examId}`);
      answers.push({ status: res.status, retryAfter: res.headers.get("retry-after"), cache: res.headers.get("cache-control"), html: await res.text() });
    }
    const calls = stack.signIns().length - before;
    expect(calls).toBeGreaterThanOrEqual(1);
    expect(calls).toBeLessThanOrEqual(5);
    expect(answers.every((a) => a.status === 502 && a.cache === "no-store")).toBe(true);
    // The first failure's page and every one replayed during the backoff say why and when.
    for (const a of [answers[0]!, answers[1]!, answers[199]!]) {
      expect(Number(a.retryAfter)).toBeGreaterThanOrEqual(1);
      expect(a.html).toContain("The exam service is failing");
      expect(a.html).toMatch(new RegExp(`try again in ${a.retryAfter} seconds?`));
    }
    expect(stack.logger.lines.filter((l) => l.obj.outcome === "failure_backoff").length).toBeGreaterThanOrEqual(195);
    // The key was not drained: another student goes straight through.
    const bob = await stack.as("bob", `/oral/launch/${exam.examId}`);
    expect(bob.status).toBe(303);
  });

  it("a student reloading 200 times against a full class causes at most 5 sign-in calls; the page says it is not an outage", async () => {
    stack = await startStormStack({ emulator: { classCapacity: 1 } });
    const exam = await stack.seedDirect();
    expect((await stack.as("s3", `/oral/launch/${exam.examId}`)).status).toBe(303); // the one seat
    const before = stack.signIns().length;
    const statuses = new Set<number>();
    let replayed: Response | undefined;
    for (let i = 0; i < 200; i++) {
      const res = await stack.as("ada", `/oral/launch/${exam.examId}`);
      statuses.add(res.status);
      if (i === 1) replayed = res;
      else await res.arrayBuffer();
    }
    expect(stack.signIns().length - before).toBeLessThanOrEqual(5);
    expect([...statuses]).toEqual([409]);
    expect(Number(replayed!.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    const html = await replayed!.text();
    expect(html).toContain("This exam is full: the class has no free places. This is not a problem with the exam service; ask your instructor.");
    expect(html).toMatch(/try again in \d+ seconds?/);
  });

  it("the backoff grows with failures in a row and a token resets it", async () => {
    stack = await startStormStack({ router: { launchLimit: { burst: 100, failureBackoffMs: 1_000, maxFailureBackoffMs: 8_000 } } });
    const exam = await stack.seedDirect();
    const launch = () => stack!.as("ada", `/oral/launch/${exam.examId}`);
    const fault = () => stack!.emulator.fault({ type: "status", status: 500, count: 1, pathPrefix: "/students/sign-in-token" });
    /** Reloads until a reload makes a sign-in call (the backoff is over), and returns that answer. */
    const untilCalled = async (): Promise<Response> => {
      for (;;) {
        const before = stack!.signIns().length;
        const res = await launch();
        if (stack!.signIns().length > before) return res;
        expect(res.status).toBe(502); // the replayed failure
        await res.arrayBuffer();
        await new Promise((r) => setTimeout(r, 100));
      }
    };
    fault();
    expect((await launch()).headers.get("retry-after")).toBe("1");
    fault();
    const second = await untilCalled();
    expect(second.status).toBe(502);
    expect(second.headers.get("retry-after")).toBe("2");
    const success = await untilCalled();
    expect(success.status).toBe(303);
    fault();
    expect((await launch()).headers.get("retry-after")).toBe("1");
  });

  it("is validated into the one ConfigurationError, and may not be set beside a fleet", () => {
    const base = { platform: {} as never };
    let error: unknown;
    try {
      oralAssessments({ canLaunch: "any-signed-in-user", ...base, launchLimit: { burst: 0, refillMs: -1 } });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigurationError);
    expect(String((error as Error).message)).toMatch(/launchLimit\.burst/);
    expect(String((error as Error).message)).toMatch(/launchLimit\.refillMs/);
    expect(() => oralAssessments({ canLaunch: "any-signed-in-user", ...base, fleet: {} as never })).toThrow(/fleet/);
  });
});
