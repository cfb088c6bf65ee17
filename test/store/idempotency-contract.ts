/**
 * The OralStore contract's idempotency records: a key claimed once, then pending, then
 * replayed; another body a mismatch; keys scoped by user; abandon; expiry and the takeover
 * of a dead call's claim; one winner among concurrent duplicates. Run by
 * `describeStoreContract`, so against every backend.
 */
import { describe, expect, it } from "vitest";
import { IDEMPOTENCY_PENDING_MS, IDEMPOTENCY_TTL_MS, type IdempotencyBegin, type OralStore } from "../../src/store/types.js";
import { ORG, type StoreHarness } from "./contract-fixtures.js";

export function describeIdempotencyContract({ open, place, persistent }: StoreHarness): void {
  describe("idempotency records", () => {
    const key = (k: string, user = "u1") => ({ org: ORG, user, key: k });

    it("claims a new key once, then answers pending, then replays the recorded answer", async () => {
      const store = open();
      expect(await store.beginIdempotent({ ...key("k1"), bodyHash: "h1" })).toEqual({ state: "new" });
      expect(await store.beginIdempotent({ ...key("k1"), bodyHash: "h1" })).toEqual({ state: "pending" });
      const body = { data: { _id: "c1", name: "Prüfung ✓", nested: [1, null, { a: true }] } };
      await store.completeIdempotent({ ...key("k1"), status: 201, body });
      expect(await store.beginIdempotent({ ...key("k1"), bodyHash: "h1" })).toEqual({ state: "done", status: 201, body });
      // A second complete (a confused caller) does not overwrite the first answer.
      await store.completeIdempotent({ ...key("k1"), status: 500, body: { other: true } });
      expect(await store.beginIdempotent({ ...key("k1"), bodyHash: "h1" })).toEqual({ state: "done", status: 201, body });
    });

    it("answers mismatch for the same key with another body, pending or done", async () => {
      const store = open();
      await store.beginIdempotent({ ...key("k1"), bodyHash: "h1" });
      expect(await store.beginIdempotent({ ...key("k1"), bodyHash: "h2" })).toEqual({ state: "mismatch" });
      await store.completeIdempotent({ ...key("k1"), status: 422, body: { title: "x" } });
      expect(await store.beginIdempotent({ ...key("k1"), bodyHash: "h2" })).toEqual({ state: "mismatch" });
      expect(await store.beginIdempotent({ ...key("k1"), bodyHash: "h1" })).toMatchObject({ state: "done", status: 422 });
    });

    it("scopes keys by user: another user's same key is a new key", async () => {
      const store = open();
      expect(await store.beginIdempotent({ ...key("k1", "alice"), bodyHash: "h" })).toEqual({ state: "new" });
      expect(await store.beginIdempotent({ ...key("k1", "bob"), bodyHash: "other" })).toEqual({ state: "new" });
      await store.completeIdempotent({ ...key("k1", "alice"), status: 201, body: { who: "alice" } });
      expect(await store.beginIdempotent({ ...key("k1", "bob"), bodyHash: "other" })).toEqual({ state: "pending" });
      expect(await store.beginIdempotent({ ...key("k1", "alice"), bodyHash: "h" })).toEqual({ state: "done", status: 201, body: { who: "alice" } });
    });

    it("abandon frees a pending key for a retry, but never erases a recorded answer", async () => {
      const store = open();
      await store.beginIdempotent({ ...key("k1"), bodyHash: "h1" });
      await store.abandonIdempotent(key("k1"));
      // Free again, even for another body: nothing was recorded.
      expect(await store.beginIdempotent({ ...key("k1"), bodyHash: "h2" })).toEqual({ state: "new" });
      await store.completeIdempotent({ ...key("k1"), status: 201, body: null });
      await store.abandonIdempotent(key("k1"));
      expect(await store.beginIdempotent({ ...key("k1"), bodyHash: "h2" })).toEqual({ state: "done", status: 201, body: null });
      await expect(store.abandonIdempotent(key("never"))).resolves.toBeUndefined();
      await expect(store.completeIdempotent({ ...key("never"), status: 201, body: {} })).resolves.toBeUndefined();
    });

    it("expires records 24 h after the first call began, and takes over a pending claim of a dead call", async () => {
      const store = open();
      const t0 = Date.UTC(2026, 0, 1);
      await store.beginIdempotent({ ...key("done"), bodyHash: "h", now: t0 });
      await store.completeIdempotent({ ...key("done"), status: 201, body: { v: 1 } });
      await store.beginIdempotent({ ...key("stuck"), bodyHash: "h", now: t0 });
      // Just before the limits: still there.
      expect(await store.beginIdempotent({ ...key("stuck"), bodyHash: "h", now: t0 + IDEMPOTENCY_PENDING_MS - 1 })).toEqual({ state: "pending" });
      expect(await store.beginIdempotent({ ...key("done"), bodyHash: "h", now: t0 + IDEMPOTENCY_TTL_MS - 1 })).toMatchObject({ state: "done" });
      // Past them: a pending claim is taken over, a recorded answer is forgotten.
      expect(await store.beginIdempotent({ ...key("stuck"), bodyHash: "h", now: t0 + IDEMPOTENCY_PENDING_MS + 1 })).toEqual({ state: "new" });
      expect(await store.beginIdempotent({ ...key("done"), bodyHash: "other", now: t0 + IDEMPOTENCY_TTL_MS + 1 })).toEqual({ state: "new" });
    });

    it("rejects a malformed key with a TypeError naming the field", async () => {
      const store = open();
      await expect(store.beginIdempotent({ org: ORG, user: "", key: "k", bodyHash: "h" })).rejects.toThrow(/user/);
      await expect(store.beginIdempotent({ org: ORG, user: "u", key: "k", bodyHash: "" })).rejects.toThrow(TypeError);
      await expect(store.completeIdempotent({ org: ORG, user: "u", key: "k", status: 2000, body: {} })).rejects.toThrow(/status/);
    });

    it("gives exactly one of many concurrent duplicates the key (the race overlaps), and the others its answer", async () => {
      // Several store objects on one place when the backend is persistent (processes or
      // instances sharing a database); one store otherwise.
      const where = place();
      const stores = persistent ? [open(where), open(where), open(where)] : [open(where)];
      await Promise.all(stores.map((s) => s.init()));
      const callers = 24;
      let started = 0;
      let settled = 0;
      let startedWhenFirstSettled = -1;
      const attempt = async (i: number): Promise<IdempotencyBegin> => {
        const store = stores[i % stores.length] as OralStore;
        started += 1;
        const first = await store.beginIdempotent({ ...key("race"), bodyHash: "h" });
        if (settled++ === 0) startedWhenFirstSettled = started;
        return first;
      };
      const firsts = await Promise.all(Array.from({ length: callers }, (_, i) => attempt(i)));
      // The race happened: every caller had begun before the first one had its answer.
      expect(startedWhenFirstSettled).toBe(callers);
      expect(firsts.filter((f) => f.state === "new")).toHaveLength(1);
      expect(firsts.filter((f) => f.state === "pending")).toHaveLength(callers - 1);

      // The winner records its answer; every loser, on any store, now replays it.
      await stores[0]?.completeIdempotent({ ...key("race"), status: 201, body: { data: { _id: "x1" } } });
      const replays = await Promise.all(stores.map((s) => s.beginIdempotent({ ...key("race"), bodyHash: "h" })));
      for (const r of replays) expect(r).toEqual({ state: "done", status: 201, body: { data: { _id: "x1" } } });
    });
  });
}
