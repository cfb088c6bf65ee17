/**
 * The replays of one LTI return mark in a process of their own (return-replays.js starts
 * it), so the 10,000 requests' client work does not share the event loop that times the
 * other school. Says `ready`; on `{ url, cookie, count, concurrency }` sends `count`
 * GETs of `url` with `cookie`, `concurrency` at a time on keep-alive sockets, and answers
 * with how many were answered 200 and how many otherwise.
 */
import { createBrowserPool, get } from "./lib/browser.js";

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
