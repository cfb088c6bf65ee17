/**
 * The circuit breaker's state machine on a fake clock (the in-process store with an
 * injected clock runs exactly `circuit-breaker.ts`), and which platform failures count.
 * The Redis store runs the same machine in Lua: test/fleet/contracts/breaker-contract.ts.
 */
import { describe, expect, it } from "vitest";
import { DEFAULT_BREAKER_SETTINGS, type CircuitBreakerSettings } from "../../src/fleet/circuit-breaker.js";
import { inProcessCircuitBreaker } from "../../src/fleet/in-process-circuit-breaker.js";
import { breakerVerdict } from "../../src/fleet/platform-breaker.js";
import { platformErrorFor } from "../../src/platform/errors.js";

const SCOPE = "org\u0000key\u0000sign-in";

function machine(settings: Partial<CircuitBreakerSettings> = {}) {
  let now = 1_000_000;
  const store = inProcessCircuitBreaker({ ...DEFAULT_BREAKER_SETTINGS, ...settings }, () => now);
  return {
    store,
    advance: (ms: number) => { now += ms; },
    /** One call: admitted (or not), then settled with `verdict`. */
    call: async (verdict: "success" | "failure" | "neutral") => {
      const admission = await store.admit(SCOPE);
      if (!admission.allowed) return { admission, change: undefined };
      return { admission, change: await store.settle(SCOPE, verdict, admission.probe) };
    },
  };
}

describe("the circuit breaker's state machine (fake clock)", () => {
  it("drops a scope idle for two windows (many organizations do not stay in memory), and keeps an open one", async () => {
    const m = machine();
    for (let i = 0; i < 300; i++) {
      await m.store.admit(`org${i}\u0000key\u0000sign-in`);
      await m.store.settle(`org${i}\u0000key\u0000sign-in`, "success", false);
    }
    for (let i = 0; i < 5; i++) await m.call("failure"); // SCOPE opens
    expect(m.store.size).toBe(301);
    m.advance(30_000);
    await m.store.view(SCOPE);
    m.advance(31_000); // two windows and more since the 300 were last counted
    await m.store.admit("another\u0000key\u0000sign-in");
    // The open scope stays (it refuses calls until a probe), the idle closed ones went.
    expect(m.store.size).toBe(2);
    expect((await m.store.view(SCOPE)).state).not.toBe("closed");
  });

  it("opens on the 5th failure when failures are at least half the calls, and then refuses with the time left", async () => {
    const m = machine();
    for (let i = 0; i < 4; i++) expect((await m.call("failure")).change).toBeUndefined();
    expect((await m.store.view(SCOPE)).state).toBe("closed");
    expect((await m.call("failure")).change).toBe("opened");
    m.advance(4_000);
    expect(await m.store.admit(SCOPE)).toEqual({ allowed: false, retryAfterMs: 11_000, state: "open" });
    expect(await m.store.view(SCOPE)).toEqual({ state: "open", retryAfterMs: 11_000 });
  });

  it("stays closed while failures are under half the calls (sporadic 500s in a storm of successes)", async () => {
    const m = machine();
    for (let i = 0; i < 40; i++) {
      await m.call("success");
      if (i % 3 === 0) await m.call("failure"); // 14 failures, 40 successes
    }
    expect((await m.store.view(SCOPE)).state).toBe("closed");
  });

  it("forgets failures as they slide out of the window", async () => {
    const m = machine();
    for (let i = 0; i < 4; i++) await m.call("failure");
    m.advance(61_000); // two windows later: nothing is left
    expect((await m.call("failure")).change).toBeUndefined();
    // Within one window, the previous bucket still weighs: 4 failures half a window ago + 2 now.
    const n = machine();
    for (let i = 0; i < 4; i++) await n.call("failure");
    n.advance(45_000); // 15 s into the next bucket: the previous one's 4 weigh 0.5, so the 3rd failure now makes 5
    expect((await n.call("failure")).change).toBeUndefined();
    expect((await n.call("failure")).change).toBeUndefined();
    expect((await n.call("failure")).change).toBe("opened");
  });

  it("neutral calls (aborted, never sent, rate limited) count for nothing", async () => {
    const m = machine();
    for (let i = 0; i < 20; i++) await m.call("neutral");
    for (let i = 0; i < 4; i++) await m.call("failure");
    expect((await m.store.view(SCOPE)).state).toBe("closed");
    expect((await m.call("failure")).change).toBe("opened");
  });

  it("after openMs one probe at a time: the others are refused for at most 5 s; the probe's success closes it", async () => {
    const m = machine();
    for (let i = 0; i < 5; i++) await m.call("failure");
    m.advance(15_000);
    const probe = await m.store.admit(SCOPE);
    expect(probe).toEqual({ allowed: true, probe: true });
    expect(await m.store.admit(SCOPE)).toEqual({ allowed: false, retryAfterMs: 5_000, state: "half_open" });
    expect((await m.store.view(SCOPE)).state).toBe("half_open");
    expect(await m.store.settle(SCOPE, "success", true)).toBe("closed");
    expect(await m.store.admit(SCOPE)).toEqual({ allowed: true, probe: false });
    // Closed afresh: it takes five new failures to open again.
    for (let i = 0; i < 4; i++) expect((await m.call("failure")).change).toBeUndefined();
  });

  it("a failed probe opens it for another openMs", async () => {
    const m = machine();
    for (let i = 0; i < 5; i++) await m.call("failure");
    m.advance(15_000);
    const { admission, change } = await m.call("failure");
    expect(admission).toEqual({ allowed: true, probe: true });
    expect(change).toBe("opened");
    expect(await m.store.admit(SCOPE)).toEqual({ allowed: false, retryAfterMs: 15_000, state: "open" });
  });

  it("a probe that proved nothing (aborted) hands the probe to the next caller at once", async () => {
    const m = machine();
    for (let i = 0; i < 5; i++) await m.call("failure");
    m.advance(15_000);
    expect((await m.call("neutral")).admission).toEqual({ allowed: true, probe: true });
    expect(await m.store.admit(SCOPE)).toEqual({ allowed: true, probe: true });
  });

  it("a probe that never reports lapses after probeLeaseMs, and the next caller probes", async () => {
    const m = machine({ probeLeaseMs: 30_000 });
    for (let i = 0; i < 5; i++) await m.call("failure");
    m.advance(15_000);
    expect((await m.store.admit(SCOPE)).allowed).toBe(true); // its instance dies: never settled
    m.advance(29_999);
    expect((await m.store.admit(SCOPE)).allowed).toBe(false);
    m.advance(1);
    expect(await m.store.admit(SCOPE)).toEqual({ allowed: true, probe: true });
  });

  it("ignores late answers while open, and a non-probe failure while half-open; any success closes it", async () => {
    const m = machine();
    for (let i = 0; i < 5; i++) await m.call("failure");
    // Calls sent before it opened, answering now.
    expect(await m.store.settle(SCOPE, "success", false)).toBeUndefined();
    expect(await m.store.settle(SCOPE, "failure", false)).toBeUndefined();
    expect((await m.store.view(SCOPE)).state).toBe("open");
    m.advance(15_000);
    await m.store.admit(SCOPE); // the probe goes
    expect(await m.store.settle(SCOPE, "failure", false)).toBeUndefined();
    expect((await m.store.view(SCOPE)).state).toBe("half_open");
    expect(await m.store.settle(SCOPE, "success", false)).toBe("closed");
  });

  it("keeps scopes apart (one breaker per key and endpoint)", async () => {
    const m = machine();
    for (let i = 0; i < 5; i++) await m.call("failure");
    expect((await m.store.admit("org\u0000other-key\u0000sign-in")).allowed).toBe(true);
    expect((await m.store.admit("org\u0000key\u0000another-endpoint")).allowed).toBe(true);
  });
});

describe("which platform failures count against the breaker", () => {
  const err = (kind: Parameters<typeof platformErrorFor>[0]["kind"], extra: Record<string, unknown> = {}) =>
    platformErrorFor({ kind, message: "x", ...extra });

  it("the platform failing: 5xx, resets, unreadable answers, a timeout of a sent request, our key refused", () => {
    for (const e of [err("server", { status: 500 }), err("network"), err("bad_response", { status: 200 }), err("timeout", { attempts: 1 }), err("auth", { status: 401 }), err("http", { status: 599 })]) {
      expect(breakerVerdict(e, false), e.kind).toBe("failure");
    }
  });

  it("a student's own 4xx shows the platform works: 409 full class, 400, 403, 404, 422", () => {
    for (const e of [err("conflict", { status: 409 }), err("validation", { status: 400 }), err("permission", { status: 403 }), err("not_found", { status: 404 }), err("http", { status: 410 })]) {
      expect(breakerVerdict(e, false), e.kind).toBe("success");
    }
  });

  it("proves nothing: aborted by us, never sent, rate limited, not a platform error", () => {
    expect(breakerVerdict(err("server", { status: 500 }), true)).toBe("neutral");
    expect(breakerVerdict(err("timeout", { attempts: 0 }), false)).toBe("neutral");
    expect(breakerVerdict(err("rate_limited", { status: 429 }), false)).toBe("neutral");
    expect(breakerVerdict(err("invalid_request"), false)).toBe("neutral");
    expect(breakerVerdict(new Error("a bug of ours"), false)).toBe("neutral");
  });
});
