/**
 * One bench host app (lib/host.js) in its own process, so the benchmark's client (this
 * process: it sends the launches and times them) and the router under test do not share
 * an event loop, as a browser and a server never do. Started by lib/host-process.js with
 * an IPC channel and `EOA_BENCH_HOST` (JSON: the emulator's url and key, and the host's
 * serialisable options); sends `{ url }` once listening, and stops when the parent
 * disconnects.
 */
import { sqliteStore } from "express-oral-assessments";
import { startHost } from "./lib/host.js";

const { emulator, client, router: { sqliteFile, noExamHost, ...router } } = JSON.parse(process.env.EOA_BENCH_HOST);
const host = await startHost(emulator, {
  client,
  router: {
    ...router,
    ...(sqliteFile === undefined ? {} : { store: sqliteStore({ filename: sqliteFile }) }),
    // JSON has no `undefined`: the platform's own host signs students in (no platform call).
    ...(noExamHost ? { examHost: undefined } : {}),
  },
});
process.send?.({ url: host.url });
process.on("disconnect", () => {
  host.close().then(() => process.exit(0));
});
