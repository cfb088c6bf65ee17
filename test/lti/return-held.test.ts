/**
 * `GET <mount>/lti/return` past its address's limit: the 429 is held until the next token
 * is due (at most 1 s, src/lti/gradebook/held-answers.ts), so a script that waits for each
 * answer is paced to the limit's rate; at most 16 answers per address are held (beyond,
 * the 429 goes at once); a held answer whose client left frees its place. Over real HTTP
 * to the session app, all from 127.0.0.1 (one address); the cap over all addresses with
 * the same class on a bare HTTP server, its bounds made small.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLmsEmulator, type LmsEmulator } from "../../src/emulator/index.js";
import { HeldAnswers, HOLD_MAX_MS, HOLD_PER_KEY } from "../../src/lti/gradebook/held-answers.js";
import { DASHBOARD_EXAMS_LINKABLE, TOOL_KEY_PEM } from "../support/lti.js";
import { startStack, type Stack } from "../support/stack.js";

/** One GET of the return page (or `path`) on its own socket, `from` sent as X-Forwarded-For: its status and how long the answer took (ms). */
function back(url: string, { signal, from, path = "/oral/lti/return" }: { signal?: AbortSignal; from?: string; path?: string } = {}): Promise<{ status: number; ms: number }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = http.get(`${url}${path}`, { agent: false, signal, headers: from ? { "x-forwarded-for": from } : {} }, (res) => {
      res.resume();
      res.on("end", () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - started }));
    });
    req.on("error", reject);
  });
}

async function stackWith(returnLimit: { burst: number; refillMs: number }, lms: LmsEmulator): Promise<Stack> {
  const stack = await startStack({
    router: { lti: { keys: [{ kid: "tool-1", privateKey: TOOL_KEY_PEM }], registrations: [lms.registration()], allowLoopbackHttp: true, canLink: DASHBOARD_EXAMS_LINKABLE, emailStandIn: { domain: "lms.invalid" },
      gradebook: { pollMs: 50, returnLimit } } },
  });
  lms.registerTool(`${stack.app.url}/oral`);
  return stack;
}

describe("GET /lti/return past the limit: the 429 held until the next token", () => {
  let lms: LmsEmulator;
  const stacks: Stack[] = [];
  beforeAll(async () => {
    lms = await createLmsEmulator();
  });
  afterAll(async () => {
    for (const stack of stacks) await stack.close();
    await lms?.close();
  });

  it("paces a client that waits for each answer to the limit's rate: each 429 comes when the next token is due", async () => {
    const stack = await stackWith({ burst: 2, refillMs: 400 }, lms);
    stacks.push(stack);
    const first = [await back(stack.app.url), await back(stack.app.url)];
    expect(first.map((a) => a.status)).toEqual([200, 200]);
    // The bucket is empty: the next token is ~400 ms away, and the 429 waits for it.
    const limited = await back(stack.app.url);
    expect(limited.status).toBe(429);
    expect(limited.ms).toBeGreaterThanOrEqual(250);
    // A loop of 6 that waits for each answer is paced to the limit's rate, not to the router's speed:
    // each held 429 ends as a token comes due, which the next request takes (a 200), and so on.
    const started = performance.now();
    const loop: number[] = [];
    for (let i = 0; i < 6; i += 1) loop.push((await back(stack.app.url)).status);
    expect(loop.filter((s) => s === 429).length).toBeGreaterThanOrEqual(3);
    expect(performance.now() - started).toBeGreaterThanOrEqual(3 * 250);
  });

  it(`holds at most ${HOLD_PER_KEY} answers per address: beyond, the 429 goes at once; a held answer whose client left frees its place`, async () => {
    const stack = await stackWith({ burst: 1, refillMs: 600_000 }, lms);
    stacks.push(stack);
    expect((await back(stack.app.url)).status).toBe(200);
    // 20 at once past the limit (its next token 10 minutes away): 16 held the longest a hold lasts, 4 answered at once.
    const answers = await Promise.all(Array.from({ length: HOLD_PER_KEY + 4 }, () => back(stack.app.url)));
    expect(answers.map((a) => a.status)).toEqual(Array(HOLD_PER_KEY + 4).fill(429));
    const held = answers.filter((a) => a.ms >= HOLD_MAX_MS - 50);
    expect(held).toHaveLength(HOLD_PER_KEY);

    // 16 clients that leave before their answer: their places are free again, so the next 16 are held too.
    const leaving = new AbortController();
    const left = Array.from({ length: HOLD_PER_KEY }, () => back(stack.app.url, { signal: leaving.signal }).catch(() => "left"));
    await new Promise((resolve) => setTimeout(resolve, 200));
    leaving.abort();
    expect(await Promise.all(left)).toEqual(Array(HOLD_PER_KEY).fill("left"));
    await new Promise((resolve) => setTimeout(resolve, 100));
    const next = await Promise.all(Array.from({ length: HOLD_PER_KEY }, () => back(stack.app.url)));
    expect(next.filter((a) => a.status === 429 && a.ms >= HOLD_MAX_MS - 50)).toHaveLength(HOLD_PER_KEY);
  });

  it("holds at most `total` answers in all, over every key: beyond, the answer goes at once (HeldAnswers on a bare HTTP server, small bounds)", async () => {
    // The router's cap (1,000) cannot be filled within one hold's second by a test that is also the
    // server; the same class with a cap of 3 can, over real sockets.
    const holder = new HeldAnswers({ maxMs: HOLD_MAX_MS, perKey: 2, total: 3 });
    const server = http.createServer((req, res) => holder.hold(req.headers["x-forwarded-for"] as string, 60_000, res, () => res.writeHead(429).end()));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      // Keys a, a, b, c, d: a's two and b's fill the cap (held the hold's length), c's and d's go at once.
      const order = ["a", "a", "b", "c", "d"];
      const answers: { status: number; ms: number }[] = [];
      for (const from of order) {
        answers.push(await Promise.race([back(url, { from, path: "/" }), new Promise<{ status: number; ms: number }>((resolve) => setTimeout(() => resolve({ status: 0, ms: -1 }), 200))]));
      }
      // The first three were still held after 200 ms each (status 0 here); the last two were answered at once.
      expect(answers.map((a) => a.status)).toEqual([0, 0, 0, 429, 429]);
      holder.close();
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});
