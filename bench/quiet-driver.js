/**
 * The quiet school's instructor for return-replays.js, in a process of its own: its
 * `GET /oral/courses` timings are then the router's answer time alone, not also the wait
 * for an event loop the router shares (in the bench's process, a busy router delayed the
 * timer's own reading of each answer). One request at a time on a keep-alive socket.
 * `{ url, cookie, rounds }` → the ms of `rounds` requests; `{ url, cookie, rounds: 0 }`
 * runs until `{ stop: true }` and then answers with every request's ms. Any answer but
 * 200 ends the run with an error naming the status.
 */
import { createBrowserPool, get } from "./lib/browser.js";

const agent = createBrowserPool();
let running;

process.on("message", async ({ id, url, cookie, rounds, stop }) => {
  if (stop) {
    if (running) running.stopped = true;
    process.send({ id, result: true });
    return;
  }
  const run = { stopped: false };
  running = run;
  const ms = [];
  try {
    for (let i = 0; rounds > 0 ? i < rounds : !run.stopped; i += 1) {
      const t = performance.now();
      const answer = await get(agent, url, cookie);
      ms.push(performance.now() - t);
      if (answer.status !== 200) throw new Error(`the quiet school's GET ${new URL(url).pathname} answered ${answer.status}`);
    }
    process.send({ id, result: ms });
  } catch (error) {
    process.send({ id, error: error.message });
  }
});
process.on("disconnect", () => process.exit(0));
process.send({ ready: true });
