/**
 * The heap as the heap tests measure it: after three full collections 50 ms apart, so
 * what is left is what is retained. `--expose-gc` is set when this module loads (such tests
 * run in a process of their own: vitest.config.ts, OWN_PROCESS).
 */
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

setFlagsFromString("--expose-gc");
/** A full garbage collection, now. */
export const gc = runInNewContext("gc") as () => void;

/** `heapUsed` once three collections have run. */
export async function settledHeap(): Promise<number> {
  for (let i = 0; i < 3; i++) {
    gc();
    await new Promise((r) => setTimeout(r, 50));
  }
  return process.memoryUsage().heapUsed;
}
