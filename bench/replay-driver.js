/**
 * The replays of one LTI return mark in a process of their own (return-replays.js starts
 * it), so the 10,000 requests' client work does not share the event loop that times the
 * other school. Says `ready`; on `{ url, cookie, count, concurrency }` sends `count`
 * GETs of `url` with `cookie`, `concurrency` at a time on keep-alive sockets, and answers
 * with how many were answered 200 and how many otherwise.
 *
 * `REPLAY_NICE` (0–19, default 0): this process's scheduling niceness. A learner's script
 * runs on the learner's machine, not on the router's cores; on a 2-core bench machine the
 * driver otherwise takes one of them from the router. Niced, it gets what the router and
 * the quiet school leave, and the bench reports the replay rate it reached.
 */
import { setPriority } from "node:os";
import { createBrowserPool, get } from "./lib/browser.js";

const nice = Number(process.env.REPLAY_NICE ?? 0);
if (nice > 0) setPriority(nice);

process.on("message", async ({ id, url, cookie, count, concurrency }) => {
  const agent = createBrowserPool();
  const answered = { ok: 0, other: 0, statuses: {} };
  let next = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < count) {
      next += 1;
      const status = await get(agent, url, cookie).then((r) => r.status, () => 0);
      if (status === 200) answered.ok += 1;
      else answered.other += 1;
      answered.statuses[status] = (answered.statuses[status] ?? 0) + 1;
    }
  }));
  agent.destroy();
  process.send({ id, result: answered });
});
process.on("disconnect", () => process.exit(0));
process.send({ ready: true });
