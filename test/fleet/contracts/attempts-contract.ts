/** The LaunchAttemptStore promises, for the in-process and the Redis implementation alike. */
import { afterAll, describe, expect, it } from "vitest";
import type { AttemptView, LaunchAttemptStore } from "../../../src/fleet/launch-attempts.js";

/**
 * What a request held on another instance's attempt does: polls the store until it settles, its owner's lease lapses, or time is up
 * (on the pair's clock). `between(n)` runs after the n-th poll: what the owner does meanwhile.
 */
async function waitForAttempt(store: LaunchAttemptStore, clock: TestClock, waitId: string, examId: string, userKey: string,
  options: { timeoutMs: number; pollMs: number; between?: (polls: number) => Promise<unknown> }): Promise<AttemptView> {
  const until = clock.now() + options.timeoutMs;
  for (let polls = 1; ; polls++) {
    const view = await store.view(waitId, examId, userKey);
    if (view.state !== "running" || view.leaseLapsed || clock.now() >= until) return view;
    await options.between?.(polls);
    await clock.pass(Math.min(options.pollMs, Math.max(1, until - clock.now())));
  }
}
import { lapses, TIMINGS, type MakePair, type Pair, type TestClock } from "./pair.js";

const { attemptLeaseMs: LEASE, claimGraceMs: GRACE } = TIMINGS;

/** `make` must use the lease, outcome TTL and claim grace of `TIMINGS`. */
export function describeAttemptsContract(name: string, make: MakePair<LaunchAttemptStore>): void {
  // Concurrent: each test has its own pair, and on Redis the waits for lapses overlap.
  describe.concurrent(`${name}: the LaunchAttemptStore contract`, () => {
    const opened: Pair<LaunchAttemptStore>[] = [];
    const open = async () => { const p = await make(); opened.push(p); return p; };
    afterAll(async () => { await Promise.all(opened.splice(0).map((p) => p.close())); });
    let n = 0;
    const student = () => `student-${++n}-${Math.random()}`;
    const lapsed = (view: AttemptView) => view.state === "running" && view.leaseLapsed;

    it("a double click split across instances joins one attempt: one owner, one wait id", async () => {
      const { a, b } = await open();
      const user = student();
      const first = await a.begin("exam-1", user);
      const second = await b.begin("exam-1", user);
      expect(first.lease).toBeDefined();
      expect(second.lease).toBeUndefined();
      expect(second.waitId).toBe(first.waitId);
    });

    it("20 concurrent begins for one student make exactly one owner", async () => {
      const { a, b } = await open();
      const user = student();
      const tickets = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).begin("exam-1", user)));
      expect(tickets.filter((t) => t.lease !== undefined)).toHaveLength(1);
      expect(new Set(tickets.map((t) => t.waitId)).size).toBe(1);
    });

    it("a token outcome is seen by any instance; 20 concurrent claims (one double click) share it, a claim after the grace gets nothing", async () => {
      const { a, b, clock } = await open();
      const user = student();
      const { waitId, lease } = await a.begin("exam-1", user);
      expect(await b.view(waitId, "exam-1", user)).toEqual({ state: "running", leaseLapsed: false });
      expect(await a.complete(waitId, lease!, { kind: "token", token: "tok-123" })).toBe(true);
      expect(await b.view(waitId, "exam-1", user)).toEqual({ state: "done", outcome: "token", claimed: false });
      const claims = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).claim(waitId, "exam-1", user)));
      expect(claims).toEqual(Array.from({ length: 20 }, () => ({ kind: "token", token: "tok-123" })));
      expect(await a.view(waitId, "exam-1", user)).toEqual({ state: "done", outcome: "token", claimed: true });
      // A click some time after the first, within the grace, still gets it (the grace is not one instant).
      await clock.pass(GRACE / 2);
      expect(await b.claim(waitId, "exam-1", user)).toEqual({ kind: "token", token: "tok-123" });
      await lapses(clock, GRACE / 2, async () => (await b.claim(waitId, "exam-1", user)) === undefined, "a claim after the grace gets nothing");
      // Claimed: the next launch is a new attempt.
      const next = await b.begin("exam-1", user);
      expect(next.waitId).not.toBe(waitId);
      expect(next.lease).toBeDefined();
    });

    it("an unclaimed token outcome is joined, not replaced, by a new begin", async () => {
      const { a, b } = await open();
      const user = student();
      const { waitId, lease } = await a.begin("exam-1", user);
      await a.complete(waitId, lease!, { kind: "token", token: "tok-9" });
      expect(await b.begin("exam-1", user)).toEqual({ waitId, lease: undefined });
    });

    it("a failure is readable every time, and the next begin starts over", async () => {
      const { a, b } = await open();
      const user = student();
      const { waitId, lease } = await a.begin("exam-1", user);
      await a.complete(waitId, lease!, { kind: "failed", status: 503, detail: "platform down" });
      expect(await b.claim(waitId, "exam-1", user)).toEqual({ kind: "failed", status: 503, detail: "platform down" });
      expect(await a.claim(waitId, "exam-1", user)).toEqual({ kind: "failed", status: 503, detail: "platform down" });
      const next = await b.begin("exam-1", user);
      expect(next.waitId).not.toBe(waitId);
      expect(next.lease).toBeDefined();
    });

    it("a failed attempt replaced by a new begin still answers the requests that joined it, for the claim grace", async () => {
      const { a, b, clock } = await open();
      const user = student();
      const { waitId, lease } = await a.begin("exam-1", user);
      // A double click on another instance joins it.
      expect(await b.begin("exam-1", user)).toEqual({ waitId, lease: undefined });
      await a.complete(waitId, lease!, { kind: "failed", status: 403, detail: "refused" });
      // A third click lands after the failure: a new attempt, before the joined request read its outcome.
      const next = await a.begin("exam-1", user);
      expect(next.waitId).not.toBe(waitId);
      expect(next.lease).toBeDefined();
      expect(await b.view(waitId, "exam-1", user)).toEqual({ state: "done", outcome: "failed", claimed: false });
      expect(await b.claim(waitId, "exam-1", user)).toEqual({ kind: "failed", status: 403, detail: "refused" });
      expect(await b.view(next.waitId, "exam-1", user)).toEqual({ state: "running", leaseLapsed: false });
      await clock.pass(GRACE / 2);
      expect(await b.claim(waitId, "exam-1", user)).toEqual({ kind: "failed", status: 403, detail: "refused" });
      // After the grace the old wait id starts over.
      await lapses(clock, GRACE / 2, async () => (await b.view(waitId, "exam-1", user)).state === "unknown", "the replaced wait id is forgotten");
      expect(await b.claim(waitId, "exam-1", user)).toBeUndefined();
    });

    it("a claimed token replaced by a new begin still goes to the double click's other claims within the grace", async () => {
      const { a, b, clock } = await open();
      const user = student();
      const { waitId, lease } = await a.begin("exam-1", user);
      // The double click's second request, on another instance.
      expect(await b.begin("exam-1", user)).toEqual({ waitId, lease: undefined });
      await a.complete(waitId, lease!, { kind: "token", token: "tok-7" });
      expect(await a.claim(waitId, "exam-1", user)).toEqual({ kind: "token", token: "tok-7" });
      const next = await b.begin("exam-1", user);
      expect(next.waitId).not.toBe(waitId);
      expect(await b.view(waitId, "exam-1", user)).toEqual({ state: "done", outcome: "token", claimed: true });
      expect(await b.claim(waitId, "exam-1", user)).toEqual({ kind: "token", token: "tok-7" });
      await clock.pass(GRACE / 2);
      expect(await b.claim(waitId, "exam-1", user)).toEqual({ kind: "token", token: "tok-7" });
      await lapses(clock, GRACE / 2, async () => (await b.claim(waitId, "exam-1", user)) === undefined, "a claim after the grace gets nothing");
    });

    it("a claimed token replaced late in its grace goes to no claim once the grace since its claim is over, though the replaced attempt is still readable", async () => {
      const { a, b, clock } = await open();
      const user = student();
      const { waitId, lease } = await a.begin("exam-1", user);
      await a.complete(waitId, lease!, { kind: "token", token: "tok-late" });
      const claimedBy = clock.now();
      expect(await a.claim(waitId, "exam-1", user)).toEqual({ kind: "token", token: "tok-late" });
      const claimedAfter = clock.now();
      // Replaced late in the grace: the replaced attempt stays readable for a grace from now,
      // but what it hands out is the claimed token, whose grace runs from its claim.
      await clock.pass(Math.max(0, GRACE * 0.9 - (clock.now() - claimedBy)));
      const replacedAt = clock.now();
      expect((await b.begin("exam-1", user)).waitId).not.toBe(waitId);
      await clock.pass(Math.max(1, claimedAfter + GRACE + 50 - clock.now()));
      // Past the claim's grace (on unchanged code nothing is handed out whenever this runs);
      // the check below only proves more while the replaced attempt is still readable.
      const claimed = await b.claim(waitId, "exam-1", user);
      const checkedBefore = clock.now();
      expect(claimed).toBeUndefined();
      if (!clock.fake && checkedBefore >= replacedAt + GRACE) console.warn("attempts contract: too slow to check a replaced token's claim grace in this run");
    });

    it("a wait id is honoured only with its own student and exam", async () => {
      const { a, b } = await open();
      const user = student();
      const { waitId } = await a.begin("exam-1", user);
      expect(await b.view(waitId, "exam-1", student())).toEqual({ state: "unknown" });
      expect(await b.view(waitId, "exam-2", user)).toEqual({ state: "unknown" });
      expect(await b.view("no-such-wait-id", "exam-1", user)).toEqual({ state: "unknown" });
    });

    it("an owner that stops renewing loses the attempt to the next request; its late outcome is dropped", async () => {
      const { a, b, clock } = await open();
      const user = student();
      const { waitId, lease } = await a.begin("exam-1", user);
      expect(await b.takeOver(waitId, "exam-1", user)).toBeUndefined(); // lease still live
      await lapses(clock, LEASE, async () => lapsed(await b.view(waitId, "exam-1", user)), "the unrenewed lease lapses");
      expect(await b.view(waitId, "exam-1", user)).toEqual({ state: "running", leaseLapsed: true });
      const taken = await b.takeOver(waitId, "exam-1", user);
      expect(taken).toBeDefined();
      expect(await a.renew(waitId, lease!)).toBe(false);
      expect(await a.complete(waitId, lease!, { kind: "token", token: "late" })).toBe(false);
      expect(await b.complete(waitId, taken!, { kind: "token", token: "fresh" })).toBe(true);
      expect(await a.claim(waitId, "exam-1", user)).toEqual({ kind: "token", token: "fresh" });
    });

    it("a lapsed attempt is taken over by the next begin too", async () => {
      const { a, b, clock } = await open();
      const user = student();
      const first = await a.begin("exam-1", user);
      await lapses(clock, LEASE, async () => lapsed(await b.view(first.waitId, "exam-1", user)), "the unrenewed lease lapses");
      const second = await b.begin("exam-1", user);
      expect(second.waitId).toBe(first.waitId);
      expect(second.lease).toBeDefined();
    });

    it("a request held on another instance's attempt wakes when it settles, or when its owner died", async () => {
      const { a, b, clock } = await open();
      const user = student();
      const { waitId, lease } = await a.begin("exam-1", user);
      // Between the held request's polls, its owner renews, then settles.
      const owner = async (polls: number) => {
        if (polls === 2) expect(await a.renew(waitId, lease!)).toBe(true);
        if (polls === 4) expect(await a.complete(waitId, lease!, { kind: "token", token: "tok-w" })).toBe(true);
      };
      const settled = await waitForAttempt(b, clock, waitId, "exam-1", user, { timeoutMs: 10 * LEASE, pollMs: 50, between: owner });
      expect(settled).toEqual({ state: "done", outcome: "token", claimed: false });
      const other = student();
      const orphan = await a.begin("exam-1", other); // never renewed nor completed: its owner "died"
      const died = await waitForAttempt(b, clock, orphan.waitId, "exam-1", other, { timeoutMs: 10 * LEASE, pollMs: 50 });
      expect(died).toEqual({ state: "running", leaseLapsed: true });
      expect(await b.takeOver(orphan.waitId, "exam-1", other)).toBeDefined();
      // Time is up long before the new owner's lease could lapse.
      const timedOut = await waitForAttempt(b, clock, orphan.waitId, "exam-1", other, { timeoutMs: LEASE / 10, pollMs: 50 });
      expect(timedOut).toEqual({ state: "running", leaseLapsed: false });
    });

    it("an attempt the store lost is put back under its wait id (adopt): any instance sees it, its owner completes it, a claim gets the token", async () => {
      const { a, b } = await open();
      const user = student();
      const waitId = "lostLostLostLostLostLost"; // what a store that lost it knows: nothing
      expect(await b.view(waitId, "exam-1", user)).toEqual({ state: "unknown" });
      expect(await a.adopt(waitId, "exam-1", user, "lease-of-the-owner")).toBe(true);
      expect(await b.view(waitId, "exam-1", user)).toEqual({ state: "running", leaseLapsed: false });
      // The student's launch joins it: no second owner.
      expect(await b.begin("exam-1", user)).toEqual({ waitId, lease: undefined });
      expect(await a.renew(waitId, "lease-of-the-owner")).toBe(true);
      expect(await a.complete(waitId, "lease-of-the-owner", { kind: "token", token: "tok-adopted" })).toBe(true);
      expect(await b.claim(waitId, "exam-1", user)).toEqual({ kind: "token", token: "tok-adopted" });
    });

    it("adopt puts nothing over the student's live attempt, nor over a wait id held under another lease; the same lease is renewed", async () => {
      const { a, b } = await open();
      const user = student();
      const live = await a.begin("exam-1", user);
      expect(await b.adopt("otherOtherOtherOtherOthe", "exam-1", user, "lease-x")).toBe(false);
      expect(await b.adopt(live.waitId, "exam-1", user, "lease-x")).toBe(false);
      expect(await b.adopt(live.waitId, "exam-1", user, live.lease!)).toBe(true);
      expect(await b.view(live.waitId, "exam-1", user)).toEqual({ state: "running", leaseLapsed: false });
      expect(await b.view("otherOtherOtherOtherOthe", "exam-1", user)).toEqual({ state: "unknown" });
      // An unclaimed token is the student's too.
      expect(await a.complete(live.waitId, live.lease!, { kind: "token", token: "tok-live" })).toBe(true);
      expect(await b.adopt("otherOtherOtherOtherOthe", "exam-1", user, "lease-x")).toBe(false);
      expect(await a.claim(live.waitId, "exam-1", user)).toEqual({ kind: "token", token: "tok-live" });
    });

    it("renewing keeps the lease alive past its first term", async () => {
      const { a, b, clock } = await open();
      const user = student();
      const { waitId, lease } = await a.begin("exam-1", user);
      const begun = clock.now();
      // Renewed every quarter lease: seconds of margin for each renewal on a loaded machine.
      while (clock.now() - begun <= LEASE) {
        await clock.pass(LEASE / 4);
        expect(await a.renew(waitId, lease!)).toBe(true);
      }
      // Over a lease after begin, yet not lapsed.
      expect(await b.view(waitId, "exam-1", user)).toEqual({ state: "running", leaseLapsed: false });
      expect(await b.takeOver(waitId, "exam-1", user)).toBeUndefined();
    });
  });
}
