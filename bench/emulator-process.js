/**
 * The emulator in its own process, so the benchmark's RSS and CPU numbers are the
 * router's, not the emulator's. Started by lib/emulator.js with an IPC channel; sends
 * `{ url, testKey }` once listening, and stops when the parent disconnects.
 */
import { startEmulator } from "express-oral-assessments/emulator";

const emulator = await startEmulator({
  // Enough for a 600-student storm's log; bounded for the 100k-launch memory run.
  requestLogLimit: 5_000,
  // A phase that needs full classes (the soak's abuse phase) passes a small capacity.
  classCapacity: Number(process.env.EMULATOR_CLASS_CAPACITY ?? 100_000),
  // The organizations benchmark hosts several schools, each with its own keys and window.
  ...(process.env.EMULATOR_ORGANIZATIONS ? { organizations: JSON.parse(process.env.EMULATOR_ORGANIZATIONS) } : {}),
});
process.send?.({
  url: emulator.url, testKey: emulator.testKey,
  organizations: emulator.organizations.map((o) => ({ id: o.id, testKey: o.testKey, examHost: o.examHost })),
});
process.on("disconnect", () => {
  emulator.close().then(() => process.exit(0));
});
