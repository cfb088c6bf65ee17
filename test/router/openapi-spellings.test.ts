/**
 * `GET /openapi.json` is public, and Express matches the mount path case-insensitively:
 * every spelling of `/oral` reaches the handler. The router must not keep anything per
 * spelling (it once cached a 50 kB document per `req.baseUrl`: 5 000 spellings grew the
 * heap by ~250 MB). Compared: the heap after 10 spellings and after 1 000 more: a cache per
 * spelling put back in the handler grew it by 683 MB for 2 000 (2026-11-26), so 1 000 are
 * some 17 times the 20 MB bound; 5 000 took ~100 s on a loaded machine for no more
 * certainty. Runs in the express5 project only (vitest.config.ts).
 */
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPlatformClient, memoryStore } from "../../src/index.js";
import type { Emulator } from "../../src/emulator/index.js";
import { startTestEmulator } from "../support/emulator.js";
import { TEST_KEY } from "../support/keys.js";
import { startSessionApp, type SessionApp } from "../support/session-app.js";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

// A mount path with 20 letters: 2^20 spellings Express treats as the same path.
const MOUNT = "/oralassessmentsmount";
/** How many spellings the heap test fetches. */
const SPELLINGS = 1_000;
let emulator: Emulator;
let app: SessionApp;
let platform: ReturnType<typeof createPlatformClient>;
beforeAll(async () => {
  emulator = await startTestEmulator();
  platform = createPlatformClient({ apiKey: TEST_KEY, baseUrl: emulator.url });
  app = await startSessionApp({ platform, store: memoryStore() }, MOUNT);
});
afterAll(async () => {
  await app.close();
  platform.close();
  await emulator.close();
});

/** The mount path with the case of each letter taken from the bits of n. */
function spelling(n: number): string {
  return "/" + [...MOUNT.slice(1)].map((c, i) => ((n >> i) & 1 ? c.toUpperCase() : c)).join("");
}

/** Fetches `count` spellings; keeps the bodies only when asked (1 000 of them would be the heap growth measured). */
async function fetchSpellings(from: number, count: number, keep = false): Promise<string[]> {
  const bodies: string[] = [];
  let next = from;
  const worker = async () => {
    while (next < from + count) {
      const n = next++;
      const res = await fetch(`${app.url}${spelling(n)}/openapi.json?n=${n}`);
      expect(res.status).toBe(200);
      const text = await res.text();
      if (keep) bodies.push(text);
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  return bodies;
}

function heapAfterGc(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

describe("GET /openapi.json under many spellings of the mount path", () => {
  it("answers each spelling with its own server URL and otherwise the same bytes", async () => {
    const bodies = await fetchSpellings(0, 16, true);
    const docs = bodies.map((b) => JSON.parse(b) as { servers: { url: string }[] });
    const urls = new Set(docs.map((d) => d.servers[0]?.url));
    expect(urls.size).toBe(16);
    for (const url of urls) expect(url?.toLowerCase()).toBe(MOUNT);
    const rest = new Set(docs.map((d) => JSON.stringify({ ...d, servers: undefined })));
    expect(rest.size).toBe(1);
  });

  it("keeps nothing per spelling: 1 000 spellings grow the heap no more than 10 do, within a few MB", async () => {
    await fetchSpellings(100, 10);
    const afterTen = heapAfterGc();
    await fetchSpellings(1_000, SPELLINGS);
    const afterMany = heapAfterGc();
    // A document kept per spelling would be 1 000 × ~340 kB ≈ 340 MB; the bound is 20 MB
    // so that the test process's own noise (fetch pools, vitest) cannot fail it.
    expect(afterMany - afterTen).toBeLessThan(20 * 1024 * 1024);
  }, 120_000);
});
