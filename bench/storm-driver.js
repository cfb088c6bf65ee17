/**
 * The storm school's simulated browsers in a process of their own (lib/storm-driver.js
 * starts it): in the organizations bench, the 600 storm browsers and the quiet school's
 * 50 would otherwise share the event loop that times the quiet launches, so a quiet
 * answer would wait behind storm answers in the measuring process itself, a delay no
 * deployment has (each school's students are on their own machines). Loaded first, it
 * says `ready`; on a wave message it launches the wave and answers with each walk's status
 * and ms.
 */
import { createBrowserPool, launch } from "./lib/browser.js";
import { cookieOf } from "./lib/host.js";
import { sleep } from "./lib/stats.js";

process.once("message", async ({ url, examId, org, prefix, count, arrivalMs }) => {
  const agent = createBrowserPool();
  const walks = await Promise.all(Array.from({ length: count }, async (_, i) => {
    await sleep((i * arrivalMs) / count);
    return launch(agent, url, `/oral/launch/${examId}`, cookieOf(`${prefix}${i}`, org)).catch(() => ({ status: 0, ms: NaN }));
  }));
  agent.destroy();
  process.send({ walks: walks.map(({ status, ms }) => ({ status, ms })) });
  process.disconnect();
});
process.send({ ready: true });
