/**
 * The CSV export and clients that do not read (issues 29 and 47): a SQLite store with a
 * 6 MB export (60 000 launch records of one exam); 30 clients, each signed in as its own
 * instructor (so no cap of `launchExports` refuses one), ask for it on real sockets
 * (`net.connect`) and never read. Targets, against the idle process measured in the same
 * run just before (seeded, no export yet): the heap grows < 5 MB and RSS < 20 MB while they
 * sit there, once the router stopped reading pages for them (the sockets' kernel buffers
 * full). Both after a full GC. Also what stays after they close, and a reading client's
 * time for the whole export (read as a stream, after the rest, so its text never sits in
 * the measured process). The host runs in this process: its memory is the one measured.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { connect } from "node:net";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import v8 from "node:v8";
import vm from "node:vm";
import { sqliteStore } from "express-oral-assessments";
import { cookieOf, startHost } from "./lib/host.js";
import { round, sleep } from "./lib/stats.js";

function gcFunction() {
  if (typeof globalThis.gc === "function") return globalThis.gc;
  v8.setFlagsFromString("--expose-gc");
  return vm.runInNewContext("gc");
}

export async function runExports(emulator, { clients = 30, records = 60_000, log }) {
  const dir = mkdtempSync(join(tmpdir(), "eoa-export-"));
  // Counts the pages the router reads, so the measure waits until the exports stopped reading.
  let pagesRead = 0;
  const store = new Proxy(sqliteStore({ filename: join(dir, "export.sqlite") }), {
    get(target, name) {
      const value = Reflect.get(target, name);
      if (typeof value !== "function") return value;
      return name === "listLaunches" ? (...args) => ((pagesRead += 1), value.apply(target, args)) : value.bind(target);
    },
  });
  await emulator.setRateLimits({ dev: 1_000_000, windowMs: 60_000 });
  const host = await startHost(emulator, { client: { rateLimitPerMinute: 1_000_000 }, router: { store } });
  const sockets = [];
  const gc = gcFunction();
  const memory = async () => {
    gc();
    await sleep(50);
    gc();
    const { rss, heapUsed } = process.memoryUsage();
    return { rss, heapUsed };
  };
  try {
    const { examId } = await host.seedExam("Export");
    const start = Date.now() - records * 100;
    for (let i = 0; i < records; i += 1_000) {
      await store.addLaunches("default", Array.from({ length: Math.min(1_000, records - i) }, (_, j) => {
        const n = i + j;
        return {
          at: new Date(start + n * 100).toISOString(), kind: "oral", examId, outcome: "redirected", status: 303, servedBy: "prepared", via: "link",
          student: { orgInternalId: `student-${n}`, email: `${n}@school.example` },
        };
      }));
    }
    const path = `/oral/oral-assessments/${examId}/launches`;
    // Warm: the route, the store's statements and the JSON page once, then the idle process.
    // Once more on a reset: the keep-alive connection the seeding used may have just timed out.
    const warm = async () => (await fetch(`${host.url}${path}`, { headers: { cookie: cookieOf("ins") } })).arrayBuffer();
    await warm().catch(warm);
    await sleep(500);
    const idle = await memory();
    const loadBefore = round(loadavg()[0], 2);
    const { port } = new URL(host.url);
    for (let i = 0; i < clients; i++) {
      const socket = connect(Number(port), "127.0.0.1");
      socket.pause();
      socket.on("error", () => {});
      socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/csv\r\nCookie: ${cookieOf(`ins${i}`)}\r\n\r\n`);
      sockets.push(socket);
    }
    // Until no page was read for 2 s (the sockets' kernel buffers are full): what the server
    // buffers for clients that do not read, it has by then.
    const startedWait = performance.now();
    for (let last = -1; last !== pagesRead && performance.now() - startedWait < 120_000;) {
      last = pagesRead;
      await sleep(2_000);
    }
    const settledS = round((performance.now() - startedWait) / 1000, 0);
    const pagesHeld = pagesRead;
    const held = await memory();
    for (const s of sockets.splice(0)) s.destroy();
    await sleep(1_000);
    const closed = await memory();

    const startedRead = performance.now();
    const body = (await fetch(`${host.url}${path}`, { headers: { accept: "text/csv", cookie: cookieOf("ins") } })).body;
    let bytes = 0;
    for await (const chunk of body) bytes += chunk.length;
    const readMs = performance.now() - startedRead;
    log(`exports: ${clients} clients that never read held heap +${mb(held.heapUsed - idle.heapUsed)} MB, RSS +${mb(held.rss - idle.rss)} MB; ${mb(bytes)} MB read in ${Math.round(readMs)} ms`);
    return {
      clients, records, exportMb: mb(bytes), readingClientMs: round(readMs, 0), settledS, pagesRead: pagesHeld,
      loadAverage: { before: loadBefore, after: round(loadavg()[0], 2) },
      idle: { heapMb: mb(idle.heapUsed), rssMb: mb(idle.rss) },
      heapGrowthMb: mb(held.heapUsed - idle.heapUsed), rssGrowthMb: mb(held.rss - idle.rss),
      heapPerClientKb: round((held.heapUsed - idle.heapUsed) / clients / 1e3, 1), rssPerClientKb: round((held.rss - idle.rss) / clients / 1e3, 1),
      afterCloseHeapGrowthMb: mb(closed.heapUsed - idle.heapUsed), afterCloseRssGrowthMb: mb(closed.rss - idle.rss),
    };
  } finally {
    for (const s of sockets) s.destroy();
    await host.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const mb = (bytes) => round(bytes / 1e6, 1);
