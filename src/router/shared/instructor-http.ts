/**
 * What every instructor handler shares: parsing input into a 400 that names the field,
 * calling the platform with its failures mapped to problem+json, and the answer shapes.
 */
import type { Request, Response } from "express";
import type { z } from "zod";
import type { Logger } from "../../core/logger.js";
import { PlatformError } from "../../platform/errors.js";
import { issuesOf, isRecordId, RecordId, type Meta } from "../../platform/schemas.js";
import { privateAnswerHeaders, sendJson } from "./json-answer.js";
import { invalidInput, problemFromPlatform, sendProblem } from "./problem.js";
import { keyRefusedHook } from "./key-refused.js";

export type Handler = (req: Request, res: Response) => Promise<void>;

/** Parses with a schema; on failure answers 400 naming every field and returns undefined. */
export function parseOr400<S extends z.ZodType>(res: Response, schema: S, value: unknown, prefix?: string): z.output<S> | undefined {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const errors = issuesOf(result.error).map((e) => ({ ...e, path: prefix ? (e.path === "(body)" ? prefix : `${prefix}.${e.path}`) : e.path }));
  sendProblem(res, invalidInput(errors));
  return undefined;
}

/** A path parameter that must be a platform id. */
export function param(req: Request, res: Response, name: string): string | undefined {
  const value = req.params[name];
  return isRecordId(value) ? value : parseOr400(res, RecordId, value, name);
}

export function send(res: Response, status: number, result: { data: unknown; meta: Meta | undefined }): void {
  const body: Record<string, unknown> = { data: result.data };
  if (result.meta?.requestId) body.meta = { requestId: result.meta.requestId };
  sendJson(res, status, body);
}

export const now = (): string => new Date().toISOString();

/** Calls the platform; a `PlatformError` is logged and answered, and gives undefined. */
export type Upstream = <T>(res: Response, call: () => Promise<T>) => Promise<T | undefined>;

export function upstreamWith(logger: Logger): Upstream {
  return async (res, call) => {
    try {
      return await call();
    } catch (error) {
      if (!(error instanceof PlatformError)) throw error;
      // The platform refused the organization's key: ask the resolver again; with another
      // key, retry once (a 401 means nothing was done, so the retry is safe).
      const retry = error.kind === "auth" ? keyRefusedHook(res) : undefined;
      if (retry && await retry()) {
        try {
          return await call();
        } catch (again) {
          if (!(again instanceof PlatformError)) throw again;
          return answer(again, true);
        }
      }
      return answer(error, retry !== undefined);
    }
    function answer(error: PlatformError, askedAgain: boolean): undefined {
      logger.warn({ event: "platform_error", kind: error.kind, status: error.status, code: error.code, requestId: error.requestId }, error.message);
      const problem = problemFromPlatform(error);
      if (askedAgain && error.kind === "auth") {
        problem.detail = "The platform refused this organization's API key, also after the organization resolver was asked again. Check the key it answers for this organization.";
      }
      sendProblem(res, problem);
      return undefined;
    }
  };
}

/**
 * A DELETE through the platform, then marked gone in the store (and lists refreshed).
 * A record the platform no longer knows is marked gone here too, and the 404 reported
 * as the platform gave it.
 */
export async function deleteThrough(res: Response, remove: () => Promise<unknown>, forget: () => Promise<void>): Promise<void> {
  try {
    await remove();
  } catch (error) {
    if (!(error instanceof PlatformError)) throw error;
    if (error.kind === "not_found") await forget();
    sendProblem(res, problemFromPlatform(error));
    return;
  }
  await forget();
  privateAnswerHeaders(res);
  res.status(204).end();
}
