/**
 * The rate budget against the emulator's real sliding window (short windows so the suite
 * stays fast): bursts stay under the limit with no 429, launch calls jump the queue, the
 * platform's X-RateLimit-Remaining and Retry-After hold calls back, and queued calls
 * leave the queue on their deadline or abort.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { Emulator } from "../../src/emulator/index.js";
import {
  PlatformTimeoutError, createRateBudget, type RateBudget, type RateLimitObservation,
} from "../../src/platform/index.js";
import { clientFor, emulatorWith, maxInAnyWindow, rejectionOf, type TestClient } from "./support.js";

let emulator: Emulator | undefined;
const clients: TestClient[] = [];
const client = (overrides: Parameters<typeof clientFor>[1]) => {
  const made = clientFor((emulator as Emulator).url, overrides);
  clients.push(made);
  return made;
};
afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  await emulator?.close();
  emulator = undefined;
});

describe("the sliding window", () => {
  it("sends a burst of 15 calls with a budget of 10 per window as ≤ 10 per window, meeting no 429", async () => {
    emulator = await emulatorWith({ rateLimits: { dev: 10, windowMs: 1000 } });
    const budgeted = client({ rateLimitPerMinute: 10, rateWindowMs: 1000 });
    const started = Date.now();
    const results = await Promise.all(Array.from({ length: 15 }, () => budgeted.courses.list()));
    const elapsed = Date.now() - started;
    expect(results).toHaveLength(15);
    const requests = emulator.requests;
    expect(requests.map((r) => r.status)).toEqual(Array(15).fill(200));
    expect(maxInAnyWindow(requests.map((r) => r.at), 1000)).toBeLessThanOrEqual(10);
    expect(elapsed).toBeGreaterThanOrEqual(1000);
    expect(budgeted.rateStats()).toMatchObject({ totalSent: 15, inFlight: 0, queued: { launch: 0, normal: 0 } });
  });

  it("(control) the same burst without a matching budget does meet 429s at the emulator", async () => {
    emulator = await emulatorWith({ rateLimits: { dev: 10, windowMs: 1000 } });
    const unbudgeted = client({ rateLimitPerMinute: 1000, rateWindowMs: 1000, maxRetries: 3 });
    await Promise.all(Array.from({ length: 15 }, () => unbudgeted.courses.list()));
    expect(emulator.requests.filter((r) => r.status === 429).length).toBeGreaterThan(0);
  });

  it("sends launch-priority calls queued behind normal ones first, FIFO within a priority", async () => {
    emulator = await emulatorWith();
    // Windows of 1.2 s: a pair sent late on a busy machine still lands before the next pair.
    const budgeted = client({ rateLimitPerMinute: 2, rateWindowMs: 1_200, normalShare: 0 });
    const normal = ["n0", "n1", "n2", "n3", "n4"].map((name) => budgeted.courses.create({ name }));
    const launch = ["l0", "l1"].map((name) => budgeted.courses.create({ name }, { priority: "launch" }));
    expect(budgeted.rateStats()).toMatchObject({ queued: { normal: 3, launch: 2 }, sentInWindow: 2 });
    await Promise.all([...normal, ...launch]);
    const order = emulator.requests.map((r) => (r.body as { name: string }).name);
    // Two per window; order within a window depends on which socket lands first.
    const windows = [order.slice(0, 2), order.slice(2, 4), order.slice(4, 6), order.slice(6)].map((w) => w.sort());
    expect(windows).toEqual([["n0", "n1"], ["l0", "l1"], ["n2", "n3"], ["n4"]]);
  });

  it("students.createSignInToken is launch priority by default", async () => {
    emulator = await emulatorWith();
    // Windows of 1.2 s: the token's call lands before the list's, however busy the machine.
    const budgeted = client({ rateLimitPerMinute: 1, rateWindowMs: 1_200, normalShare: 0 });
    const course = await budgeted.courses.create({ name: "C" });
    const klass = await budgeted.classes.create(course.data._id, { name: "K", startDate: "2026-01-01", endDate: "2026-02-01" });
    const queuedBehind = budgeted.courses.list();
    const token = budgeted.students.createSignInToken({
      email: "s@example.edu", firstName: "S", lastName: "T", orgInternalId: "s", classId: klass.data._id,
    });
    await Promise.all([queuedBehind, token]);
    expect(emulator.requests.slice(2).map((r) => r.path)).toEqual(["/students/sign-in-token", "/courses"]);
  });
});

describe("what the platform says", () => {
  it("waits for X-RateLimit-Reset when X-RateLimit-Remaining is 0 (another instance used the key)", async () => {
    emulator = await emulatorWith({ rateLimits: { dev: 3, windowMs: 2000 } });
    const otherInstance = client({});
    const ours = client({ rateLimitPerMinute: 100, rateWindowMs: 2000 });
    await otherInstance.courses.list();
    await otherInstance.courses.list();
    await ours.courses.list(); // the key's last request in this window: Remaining 0
    expect(ours.rateStats().serverRemaining).toBe(0);
    await ours.courses.list();
    const requests = emulator.requests;
    expect(requests.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    expect(requests[3]!.at - requests[0]!.at).toBeGreaterThanOrEqual(2000);
  });

  it("holds every queued call after a 429 until Retry-After has passed", async () => {
    emulator = await emulatorWith();
    const serial = client({ maxConcurrency: 1 });
    emulator.fault({ type: "status", status: 429, retryAfter: 1 });
    await Promise.all([serial.courses.list(), serial.courses.create({ name: "waits" })]);
    const [limited, ...rest] = emulator.requests;
    expect(limited?.status).toBe(429);
    expect(rest.map((r) => r.status).sort()).toEqual([200, 201]);
    for (const r of rest) expect(r.at - limited!.at).toBeGreaterThanOrEqual(990);
  });

  it("adopts a lower X-RateLimit-Limit from the platform than the one configured", async () => {
    emulator = await emulatorWith({ rateLimits: { dev: 5 } });
    const generous = client({ rateLimitPerMinute: 60 });
    await generous.courses.list();
    expect(generous.rateStats().limit).toBe(5);
  });
});

describe("queued calls", () => {
  it("a queued call whose deadline passes rejects with PlatformTimeoutError and leaves the queue", async () => {
    emulator = await emulatorWith();
    const slow = client({ rateLimitPerMinute: 1, rateWindowMs: 10_000 });
    await slow.courses.list();
    const started = Date.now();
    const pending = slow.courses.list({ deadlineMs: 200 });
    expect(slow.rateStats().queued.normal).toBe(1);
    const error = await rejectionOf(pending);
    expect(error).toBeInstanceOf(PlatformTimeoutError);
    expect(error.message).toContain("200 ms deadline");
    expect(Date.now() - started).toBeLessThan(2000); // the window frees a slot only after 10 s
    expect(slow.rateStats().queued.normal).toBe(0);
    expect(emulator.requests).toHaveLength(1);
    expect(slow.logger.lines.some((l) => l.level === "warn" && l.obj.kind === "timeout")).toBe(true);
  });

  it("an aborted queued call rejects with the signal's reason and leaves the queue", async () => {
    emulator = await emulatorWith();
    const slow = client({ rateLimitPerMinute: 1, rateWindowMs: 10_000 });
    await slow.courses.list();
    const controller = new AbortController();
    const pending = slow.courses.list({ signal: controller.signal, priority: "launch" });
    expect(slow.rateStats().queued.launch).toBe(1);
    controller.abort(new Error("student left"));
    const error = await rejectionOf(pending);
    expect(error.message).toBe("student left");
    expect(slow.rateStats().queued.launch).toBe(0);
    expect(emulator.requests).toHaveLength(1);
  });
});

describe("a replaceable budget", () => {
  it("routes every call through a custom RateBudget and feeds it the platform's rate headers", async () => {
    emulator = await emulatorWith();
    const inner = createRateBudget({ limit: 100, windowMs: 60_000, maxConcurrency: 4 });
    const seen: { acquired: string[]; observed: RateLimitObservation[]; released: number } = { acquired: [], observed: [], released: 0 };
    const shared: RateBudget = {
      async acquire(priority, signal) {
        seen.acquired.push(priority);
        const release = await inner.acquire(priority, signal);
        return () => {
          seen.released += 1;
          release();
        };
      },
      observe(observation) {
        seen.observed.push(observation);
        inner.observe(observation);
      },
      pause: (until) => inner.pause(until),
      stats: () => inner.stats(),
      estimateWaitMs: (ahead) => inner.estimateWaitMs(ahead),
      pacingIntervalMs: (share) => inner.pacingIntervalMs(share),
    };
    const custom = client({ rateBudget: shared });
    await custom.courses.list();
    await custom.courses.list({ priority: "launch" });
    expect(seen.acquired).toEqual(["normal", "launch"]);
    expect(seen.released).toBe(2);
    expect(seen.observed[1]).toMatchObject({ limit: 60, remaining: 58, resetAt: expect.any(Number) });
    expect(custom.rateStats().totalSent).toBe(2);
  });
});
