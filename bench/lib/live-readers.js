/**
 * The live view's watchers for the bench, in a process of their own (as dashboards run
 * in browsers, not in the host): `startLiveReaders({ url, cookie, count })` opens `count`
 * event streams and counts the snapshots each gets; `stop()` closes them and resolves
 * with the counts. Run as a child (`node live-readers.js child`), it talks over IPC.
 */
import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import { TextDecoder } from "node:util";

export function startLiveReaders({ url, cookie, count }) {
  const child = fork(fileURLToPath(import.meta.url), ["child"], { stdio: ["ignore", "inherit", "inherit", "ipc"] });
  const answer = (type) => new Promise((resolve, reject) => {
    const onMessage = (m) => {
      if (m?.type === "failed") reject(new Error(m.message));
      else if (m?.type === type) {
        child.off("message", onMessage);
        resolve(m);
      }
    };
    child.on("message", onMessage);
  });
  const opened = answer("open");
  child.send({ type: "start", url, cookie, count });
  return opened.then(() => ({
    counts: async () => (await (child.send({ type: "counts" }), answer("counts"))).snapshots,
    stop: async () => {
      const done = answer("counts");
      child.send({ type: "stop" });
      const { snapshots } = await done;
      await new Promise((resolve) => { child.once("exit", resolve); child.disconnect(); });
      return snapshots;
    },
  }));
}

if (process.argv[2] === "child") {
  const streams = [];
  process.on("message", async (m) => {
    if (m?.type === "start") {
      try {
        for (let i = 0; i < m.count; i++) {
          const abort = new AbortController();
          const res = await fetch(m.url, { headers: { accept: "text/event-stream", cookie: m.cookie }, signal: abort.signal });
          if (res.status !== 200) throw new Error(`stream ${i}: ${res.status} ${await res.text()}`);
          const stream = { abort, snapshots: 0 };
          streams.push(stream);
          const reader = res.body.getReader();
          const decoder = new TextDecoder();
          void (async () => {
            try {
              for (;;) {
                const { value, done } = await reader.read();
                if (done) return;
                stream.snapshots += decoder.decode(value, { stream: true }).split("event: snapshot").length - 1;
              }
            } catch { /* closed */ }
          })();
        }
        process.send({ type: "open" });
      } catch (error) {
        process.send({ type: "failed", message: String(error.message) });
      }
    }
    if (m?.type === "counts" || m?.type === "stop") {
      if (m.type === "stop") for (const s of streams) s.abort.abort();
      process.send({ type: "counts", snapshots: streams.map((s) => s.snapshots) });
    }
  });
  process.on("disconnect", () => process.exit(0));
}
