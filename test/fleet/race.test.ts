/**
 * The race proof: 8 app instances in 8 processes share one 20-per-second budget through
 * Redis and storm one emulator at once; the emulator's own request log never shows more
 * than 20 arrivals in any 1 s window. The emulator itself would allow far more, so the
 * proof is the shared budget's alone.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import { afterAll, describe, expect, it } from "vitest";
import { startEmulator, type Emulator } from "../../src/emulator/index.js";
import { TEST_KEY } from "../support/keys.js";
import { dropPrefix, randomPrefix, REDIS_URL, redisOrSkip, SECRET } from "../support/redis.js";
import { maxInAnyWindow } from "../../bench/lib/windows.js";

const PROCESSES = 8;
const CALLS = 12;
const LIMIT = 20;
const WINDOW_MS = 1000;
const prefix = randomPrefix("race");
const available = await redisOrSkip("the fleet race proof");

interface Child { process: ChildProcess; lines: AsyncIterator<string> }

function launch(index: number, baseUrl: string): Child {
  const child = spawn(process.execPath, ["--import", "tsx", "test/fleet/fixtures/budget-client.ts"], {
    env: { ...process.env, REDIS_URL, FLEET_SECRET: SECRET, FLEET_PREFIX: prefix, BASE_URL: baseUrl, CALLS: String(CALLS), INDEX: String(index), LIMIT: String(LIMIT), WINDOW_MS: String(WINDOW_MS) },
    stdio: ["pipe", "pipe", "inherit"],
  });
  return { process: child, lines: createInterface({ input: child.stdout! })[Symbol.asyncIterator]() };
}

async function nextJson(child: Child): Promise<Record<string, unknown>> {
  const { value, done } = await child.lines.next();
  if (done) throw new Error("the instance process ended without answering");
  return JSON.parse(value) as Record<string, unknown>;
}

describe.runIf(available)("shared rate budget across processes", () => {
  let emulator: Emulator | undefined;
  const children: Child[] = [];
  afterAll(async () => {
    for (const c of children) if (c.process.exitCode === null) c.process.kill("SIGKILL");
    await emulator?.close();
    await dropPrefix(prefix);
  });

  it(`8 processes pushing a ${LIMIT}-per-second budget never put more than ${LIMIT} requests in any 1 s window`, async () => {
    emulator = await startEmulator({ testKeys: [TEST_KEY], rateLimits: { dev: 10_000, windowMs: WINDOW_MS } });
    for (let i = 0; i < PROCESSES; i++) children.push(launch(i, emulator.url));
    const readiness = await Promise.all(children.map(nextJson));
    expect(readiness.every((r) => r.ready === true)).toBe(true);

    const started = Date.now();
    for (const c of children) c.process.stdin!.write("go\n");
    const results = await Promise.all(children.map(nextJson));
    const elapsed = Date.now() - started;

    const total = PROCESSES * CALLS;
    expect(results.map((r) => r.failed)).toEqual(Array(PROCESSES).fill(0));
    expect(results.map((r) => r.ok)).toEqual(Array(PROCESSES).fill(CALLS));
    expect(results.every((r) => r.mode === "shared")).toBe(true);
    const log = emulator.requests.filter((r) => r.path.startsWith("/courses/p"));
    expect(log).toHaveLength(total);
    // The race happened: the first window already holds requests of more than one
    // process, which competed for its slots. (How many depends on how fast each process
    // reads its "go" on a loaded machine, so only "more than one" is asserted.)
    const first = log.filter((r) => r.at < log[0]!.at + WINDOW_MS);
    expect(new Set(first.map((r) => r.path.split("-")[0])).size).toBeGreaterThanOrEqual(2);
    const busiest = maxInAnyWindow(log.map((r) => r.at), WINDOW_MS);
    console.info(`race proof: ${total} calls from ${PROCESSES} processes in ${elapsed} ms; busiest 1 s window: ${busiest}; first window: ${first.length} from ${new Set(first.map((r) => r.path.split("-")[0])).size} processes`);
    expect(busiest).toBeLessThanOrEqual(LIMIT);
    // 96 calls at 20 per second need at least 4 whole windows after the first burst.
    expect(elapsed).toBeGreaterThanOrEqual((Math.ceil(total / LIMIT) - 1) * WINDOW_MS);
  }, 90_000);
});
