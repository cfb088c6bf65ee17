/**
 * HEAD and prefetch requests of a launch URL (`Sec-Purpose: prefetch`, `Purpose:
 * prefetch`, …) never call the platform, never take a prepared token and never use the
 * student's share: a HEAD gets 204, a prefetch 503 (a browser uses a prefetched
 * navigation only when it is 2xx), both `Cache-Control: no-store`. Then the real
 * navigation launches as if they had never happened.
 */
import { afterEach, describe, expect, it } from "vitest";
import { rosterOf, startStormStack, ticketOf, until, type StormStack } from "./support.js";

let stack: StormStack | undefined;
afterEach(async () => {
  await stack?.close();
  stack = undefined;
});

const SPECULATIVE: { name: string; method: string; headers: Record<string, string>; status: number }[] = [
  { name: "HEAD", method: "HEAD", headers: {}, status: 204 },
  { name: "Sec-Purpose: prefetch", method: "GET", headers: { "sec-purpose": "prefetch" }, status: 503 },
  { name: "Sec-Purpose: prefetch;prerender", method: "GET", headers: { "sec-purpose": "prefetch;prerender" }, status: 503 },
  { name: "Purpose: prefetch", method: "GET", headers: { purpose: "prefetch" }, status: 503 },
  { name: "X-Moz: prefetch", method: "GET", headers: { "x-moz": "prefetch" }, status: 503 },
];

function send(s: StormStack, user: string, path: string, method: string, headers: Record<string, string>): Promise<Response> {
  return fetch(new URL(path, s.app.url), { method, redirect: "manual", headers: { "x-test-user": user, ...headers } });
}

describe("HEAD and prefetch of a launch URL", () => {
  it("make no platform call, take no prepared token and use none of the share; the real launch follows as usual", async () => {
    stack = await startStormStack({ router: { launchLimit: { burst: 1 } } });
    const { examId } = await stack.seedExam();
    await stack.router.prepare(examId, { startAt: new Date(Date.now() + 60_000).toISOString(), roster: [rosterOf("ada")] });
    await until(() => stack!.router.preparation(examId)?.ready === 1);
    const platformCalls = stack.emulator.requests.length;

    for (const user of ["ada", "bob"]) {
      for (const s of SPECULATIVE) {
        for (const path of [`/oral/launch/${examId}`, `/oral/launch/roleplay/${examId}`]) {
          const res = await send(stack, user, path, s.method, s.headers);
          expect(res.status, `${s.name} ${path}`).toBe(s.status);
          expect(res.headers.get("cache-control"), s.name).toBe("no-store");
          expect(res.headers.get("location"), s.name).toBeNull();
          // No Retry-After: after a 503 with one, Chromium stops prefetching the whole site for that long.
          expect(res.headers.get("retry-after"), s.name).toBeNull();
          expect(await res.text(), s.name).not.toContain("signin_");
        }
      }
    }
    expect(stack.emulator.requests.length).toBe(platformCalls);
    expect(stack.router.preparation(examId)).toMatchObject({ ready: 1, handedOut: 0 });

    // Ada's prepared token is still hers, with no call.
    const ada = await stack.as("ada", `/oral/launch/${examId}`);
    expect(ada.status).toBe(303);
    expect(ticketOf(ada.headers.get("location") ?? undefined)).toMatch(/^signin_/);
    expect(stack.signIns()).toHaveLength(1); // the one the pre-warm made
    // Bob's share (a burst of 1) is whole: his launch makes its call, the next is over the limit.
    expect((await stack.as("bob", `/oral/launch/${examId}`)).status).toBe(303);
    expect(stack.signIns()).toHaveLength(2);
    expect((await stack.as("bob", `/oral/launch/${examId}`)).status).toBe(429);
  });

  it("are answered the same for a signed-out visitor and an unknown exam, without a store or platform lookup", async () => {
    stack = await startStormStack();
    const before = stack.emulator.requests.length;
    const head = await fetch(new URL("/oral/launch/no-such-exam", stack.app.url), { method: "HEAD", redirect: "manual" });
    expect(head.status).toBe(204);
    const prefetch = await fetch(new URL("/oral/launch/no-such-exam", stack.app.url), { redirect: "manual", headers: { "sec-purpose": "prefetch" } });
    expect(prefetch.status).toBe(503);
    expect(prefetch.headers.get("cache-control")).toBe("no-store");
    expect(stack.emulator.requests.length).toBe(before);
    // A plain GET is a navigation: the usual 401 page.
    expect((await fetch(new URL("/oral/launch/no-such-exam", stack.app.url), { redirect: "manual" })).status).toBe(401);
  });
});
