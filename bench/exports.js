/**
 * The CSV export and clients that do not read (issue 29, part 3): a SQLite store with a
 * 6 MB export (60 000 launch records of one exam); 30 clients ask for it on real sockets
 * (`net.connect`) and never read. Target: the process's RSS grows < 60 MB (before the
 * export read pages at the client's pace, the same grew the process by 411 MB). Also a
 * reading client's time for the whole export. The host runs in this process: its RSS is
 * the one measured (after a full GC, both times).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
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
  const store = sqliteStore({ filename: join(dir, "export.sqlite") });
  await emulator.setRateLimits({ dev: 1_000_000, windowMs: 60_000 });
  const host = await startHost(emulator, { client: { rateLimitPerMinute: 1_000_000 }, router: { store } });
  const sockets = [];
  const gc = gcFunction();
  const rss = async () => {
    gc();
    await sleep(50);
    gc();
    return process.memoryUsage().rss;
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
    const startedRead = performance.now();
    const whole = await (await fetch(`${host.url}${path}`, { headers: { accept: "text/csv", cookie: cookieOf("ins") } })).text();
    const readMs = performance.now() - startedRead;
    log(`exports: ${(whole.length / 1e6).toFixed(1)} MB read in ${Math.round(readMs)} ms; ${clients} clients that never read`);
    const before = await rss();
    const { port } = new URL(host.url);
    for (let i = 0; i < clients; i++) {
      const socket = connect(Number(port), "127.0.0.1");
      socket.pause();
      socket.on("error", () => {});
      socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/csv\r\nCookie: ${cookieOf("ins")}\r\n\r\n`);
      sockets.push(socket);
    }
    await sleep(3_000); // what the server would buffer, it has by now
    const after = await rss();
    return {
      clients, records, exportMb: round(whole.length / 1e6, 1), readingClientMs: round(readMs, 0),
      rssBeforeMb: round(before / 1e6, 1), rssAfterMb: round(after / 1e6, 1), rssGrowthMb: round((after - before) / 1e6, 1),
    };
  } finally {
    for (const s of sockets) s.destroy();
    await host.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
