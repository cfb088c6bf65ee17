/**
 * The soak's router in a child process (router-process.js), supervised: a crash is counted
 * and the router restarted, its unhandled rejections counted, and every line it prints
 * scanned for the emulator's key (as is every answer, through `countKey`).
 */
import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";

const CHILD = fileURLToPath(new URL("./router-process.js", import.meta.url));

/**
 * Starts the router child on `emulator` with `store` ("sqlite" or "memory").
 * `current()` resolves the running router `{ child, url, ids, rss() }` (a new one after a crash).
 */
export function superviseRouter({ emulator, store, log }) {
  const counters = { crashes: 0, unhandledRejections: 0, keyLeaks: 0 };
  let router;
  let stopping = false;
  const countKey = (text) => {
    if (text.includes(emulator.testKey)) counters.keyLeaks += text.split(emulator.testKey).length - 1;
  };

  function startRouter() {
    const child = fork(CHILD, ["child"], {
      stdio: ["ignore", "pipe", "pipe", "ipc"],
      env: { ...process.env, EMULATOR_URL: emulator.url, EMULATOR_KEY: emulator.testKey, SOAK_STORE: store },
    });
    // Scan output in chunks joined per line; a key split across chunks is still found.
    for (const stream of [child.stdout, child.stderr]) {
      let rest = "";
      stream.setEncoding("utf8");
      stream.on("data", (chunk) => {
        const lines = (rest + chunk).split("\n");
        rest = lines.pop() ?? "";
        for (const l of lines) countKey(l);
      });
      stream.on("end", () => countKey(rest));
    }
    const pendingRss = [];
    child.on("message", (m) => {
      if (m?.type === "unhandledRejection") counters.unhandledRejections += 1;
      if (m?.type === "rss") pendingRss.shift()?.({ rss: m.rss, heapUsed: m.heapUsed, heapTotal: m.heapTotal, external: m.external, kept: m.kept });
    });
    return new Promise((resolve, reject) => {
      child.on("message", (m) => {
        if (m?.type === "ready") resolve({ child, url: m.url, ids: m.ids, rss: () => new Promise((r) => { pendingRss.push(r); child.send({ type: "rss" }); }) });
      });
      child.once("exit", (code) => {
        if (!stopping) {
          counters.crashes += 1;
          log(`router process exited (${code}); restarting`);
          router = startRouter();
        }
        reject(new Error(`router exited (${code}) before it was ready`));
      });
    });
  }
  router = startRouter();

  return {
    counters,
    countKey,
    current: () => router,
    /** Stops the child for good: no restart. */
    async stop() {
      stopping = true;
      const r = await router.catch(() => undefined);
      if (r) await new Promise((resolve) => { r.child.once("exit", resolve); r.child.disconnect(); });
    },
  };
}
