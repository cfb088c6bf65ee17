/**
 * One platform call's options and its answer's wrapper: what the endpoint table's types
 * (endpoint-types.ts), the rate budget and the client share. Re-exported by types.ts, the
 * client's public shape.
 */
import type { Meta } from "./schemas.js";

/**
 * Which queue a call waits in when the rate budget is short. `launch` (a student waiting
 * in front of a browser) goes before `normal` (instructor and background traffic);
 * within a priority, first come first served.
 */
export type RequestPriority = "launch" | "normal";

export interface RequestOptions {
  /** Queue priority when the rate budget is short. Default `normal`. */
  priority?: RequestPriority;
  /**
   * Abort the call (e.g. the browser went away and nobody needs the answer). The call
   * then rejects with `signal.reason`, as `fetch` does.
   */
  signal?: AbortSignal;
  /** Bound on this call including queueing, retries and waits, in ms. Default: the client's `deadlineMs`. */
  deadlineMs?: number;
}

/** A record plus the platform's `meta` (its request id), when there was one. */
export interface WithMeta<T> {
  data: T;
  meta: Meta | undefined;
}
