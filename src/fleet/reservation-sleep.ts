/**
 * A shared budget's caller sleeping on its reservation: one sleep to its turn, not polling,
 * but awake at least every second to notice an outage (it then goes to the fallback) or a
 * reason to look again.
 */
import type { FleetConnection } from "./connection.js";
import { WAKE_EVERY_MS } from "./rate-budget-timings.js";

/** Sleeps `ms`, waking every second to notice an outage or `recheck()`; "aborted" if the signal fired. */
export async function sleepOnReservation(connection: FleetConnection, ms: number, signal: AbortSignal | undefined, recheck: () => boolean): Promise<"ok" | "aborted" | "down"> {
  const until = Date.now() + ms;
  for (;;) {
    if (signal?.aborted) return "aborted";
    if (!connection.up) return "down";
    if (recheck()) return "ok";
    const left = until - Date.now();
    if (left <= 0) return "ok";
    await new Promise<void>((resolve) => {
      const done = (): void => { clearTimeout(timer); signal?.removeEventListener("abort", done); resolve(); };
      const timer = setTimeout(done, Math.min(left, WAKE_EVERY_MS));
      signal?.addEventListener("abort", done, { once: true });
    });
  }
}
