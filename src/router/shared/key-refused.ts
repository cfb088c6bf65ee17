/**
 * The 401 path between the organization step and the code that calls the platform: the
 * step leaves, on the response, a way to ask the resolver again for the request's
 * organization; a caller refused with 401 asks it, and retries once when it answered
 * another key (true). Absent for a single organization: its key comes from no resolver.
 */
import type { Response } from "express";

const LOCAL = "oralAssessmentsKeyRefused";

export type KeyRefusedHook = () => Promise<boolean>;

export function setKeyRefusedHook(res: Response, hook: KeyRefusedHook): void {
  res.locals[LOCAL] = hook;
}

export function keyRefusedHook(res: Response): KeyRefusedHook | undefined {
  return res.locals[LOCAL] as KeyRefusedHook | undefined;
}
