/**
 * One line item per exam and course across a fleet (issue 42 item 7): two router instances
 * (two session apps on 127.0.0.1, each with its own in-process fleet, so no shared lease)
 * sharing one SQLite store file, and an LMS that makes no line item for a deep-linked link
 * (the emulator's Brightspace preset). Two learners, one launched through each instance,
 * open the exam at the same moment: each instance's outbox posts its learner's first score
 * at once, both find no line item in the LMS and make one. The store keeps the first; the
 * other instance deletes its own copy (found again after create), so the course ends with
 * one column holding both scores. Without that step the LMS keeps two columns (3 runs of 3).
 * In a Redis fleet one is made: there the instances also share the LMS token (one asks, the
 * other waits for it), which alone spaced their first calls in every run seen, so this case
 * pins the outcome, not the plan lease that would otherwise keep the second from making one.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { decodeJwt } from "jose";
import { afterAll, describe, expect, it, vi } from "vitest";
import { createLmsEmulator, type LmsPreset } from "../../src/emulator/index.js";
import { redisFleet, type RedisFleet } from "../../src/fleet/redis-fleet.js";
import { sqliteStore } from "../../src/index.js";
import { dropPrefix, randomPrefix, REDIS_URL, redisOrSkip, SECRET } from "../support/redis.js";
import { DASHBOARD_EXAMS_LINKABLE, followToExam, launchFromCourse, placeExam, TOOL_KEY_PEM } from "../support/lti.js";
import { startStack, type Stack } from "../support/stack.js";

const redisUp = await redisOrSkip("one line item across a Redis fleet");
const dir = mkdtempSync(join(tmpdir(), "eoa-line-item-fleet-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.each([
  { fleet: "none (each instance its own lease)", redis: false, made: "made, and the loser's deleted" },
  { fleet: "Redis (the plan lease)", redis: true, made: "made once" },
])("two router instances sharing a SQLite store, fleet: $fleet", ({ redis, made }) => {
  it.runIf(!redis || redisUp)(`concurrent first scores of one exam and course make one line item in the LMS (${made})`, async () => {
    const lms = await createLmsEmulator({ preset: "brightspace" as LmsPreset });
    const filename = join(dir, `shared-${redis ? "redis" : "alone"}.sqlite`);
    const stores = [sqliteStore({ filename }), sqliteStore({ filename })];
    const prefix = randomPrefix("line-item");
    const fleets: RedisFleet[] = redis ? [0, 1].map(() => redisFleet({ url: REDIS_URL, secret: SECRET, prefix, commandTimeoutMs: 5_000 })) : [];
    const stacks: Stack[] = [];
    try {
      for (const [i, store] of stores.entries()) {
        stacks.push(await startStack({
          ...(stacks[0] ? { useEmulator: stacks[0].emulator } : {}),
          router: {
            store,
            ...(fleets[i] ? { fleet: fleets[i] } : {}),
            // One score at a time per instance: each instance's outbox takes its own learner's first score.
            lti: { keys: [{ kid: "tool-1", privateKey: TOOL_KEY_PEM }], registrations: [lms.registration()], allowLoopbackHttp: true, canLink: DASHBOARD_EXAMS_LINKABLE, emailStandIn: { domain: "lms.invalid" }, gradebook: { pollMs: 50, firstRetryMs: 100, maxRetryMs: 400, batchSize: 1, concurrency: 1 } },
          },
        }));
      }
      const [a, b] = stacks as [Stack, Stack];
      lms.registerTool(`${a.app.url}/oral`);
      const { examId } = await a.seedExam();
      const linkId = await placeExam({ lms }, examId);
      expect(lms.lineItems).toHaveLength(0);
      // student-1 launches through instance A, student-2 through instance B; both open the exam at once.
      const first = await launchFromCourse({ lms }, "student-1", linkId);
      lms.registerTool(`${b.app.url}/oral`);
      const second = await launchFromCourse({ lms }, "student-2", linkId);
      const opened = await Promise.all([followToExam(first), followToExam(second)]);
      expect(opened.map((o) => o.opened.status)).toEqual([303, 303]);
      const subs = [first, second].map((l) => String(decodeJwt(l.idToken).sub));

      await vi.waitFor(() => expect(lms.scores.map((s) => s.userId).sort()).toEqual([...subs].sort()), { timeout: 20_000, interval: 50 });
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(lms.lineItems).toHaveLength(1);
      const only = `${lms.url}/lineitems/${lms.lineItems[0]!.id}`;
      expect(new Set(lms.scores.map((s) => s.lineItemId))).toEqual(new Set([only]));
      // Alone, both instances made one and the loser deleted its copy; in a Redis fleet the lease let one make it.
      expect(lms.gradebookCounts.lineItemsCreated - lms.gradebookCounts.lineItemsDeleted).toBe(1);
      if (redis) expect(lms.gradebookCounts.lineItemsCreated).toBe(1);
      expect(await stores[1]!.getLtiLineItem("default", { issuer: lms.issuer, clientId: lms.clientId, deploymentId: lms.deploymentId, contextId: "course-1", kind: "oral", examId })).toBe(only);
    } finally {
      for (const s of stacks) await s.close();
      for (const s of stores) await s.close();
      await Promise.all(fleets.map((f) => f.close()));
      if (redis) await dropPrefix(prefix);
      await lms.close();
    }
  });
});
