/**
 * Wraps a Redis-backed store so that Redis being down costs sharing, never a crash or a
 * hang: while the connection is down (or when a call fails) the call goes to the
 * instance's in-process store of the same interface. A token put in Redis is then out of
 * reach (`take` answers "none" and the router issues one on demand), an attempt runs
 * locally: the student still gets in.
 */
import type { FleetConnection } from "./connection.js";

export function withFallback<T extends object>(shared: T, local: T, connection: FleetConnection): T {
  const wrapped = {} as Record<string, unknown>;
  for (const name of Object.keys(shared) as (keyof T & string)[]) {
    const viaShared = shared[name] as (...args: unknown[]) => Promise<unknown>;
    const viaLocal = local[name] as (...args: unknown[]) => Promise<unknown>;
    wrapped[name] = async (...args: unknown[]) => {
      if (!connection.up) return viaLocal(...args);
      try {
        return await viaShared(...args);
      } catch {
        return viaLocal(...args);
      }
    };
  }
  return wrapped as T;
}
