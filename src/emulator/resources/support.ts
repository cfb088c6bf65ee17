/**
 * What every resource handler shares: the call it receives, the outcome it returns, the
 * failure it throws, body validation with the shared zod schemas, and the ownership check
 * (404 when the record is not in this environment, 403 when another organization owns it).
 */
import type { z } from "zod";
import type { EndpointId } from "../../platform/endpoints.js";
import type { EmulatorContext } from "../context.js";
import type { BodyResult } from "../http.js";
import type { ApiEnv } from "../options.js";
import type { EmulatorState, JsonRecord, Owned } from "../state.js";

export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly field?: string,
  ) {
    super(message);
  }
}

export interface ApiCall {
  ctx: EmulatorContext;
  /** The environment of the path (and of the key: auth has checked they agree). */
  env: ApiEnv;
  /** That environment's records: a key never reaches the other environment's. */
  state: EmulatorState;
  /** Organization of the key that made the call. */
  org: string;
  /** Percent-decoded path parameters, in order. */
  params: string[];
  query: URLSearchParams;
  body: BodyResult;
}

/** `data: undefined` → 204 with no body. */
export interface Outcome {
  status: number;
  data?: unknown;
}

export type Handler = (call: ApiCall) => Outcome | Promise<Outcome>;
/** Handlers by the endpoint they serve (`endpoints.ts` gives each its method and path). */
export type Handlers = Partial<Record<EndpointId, Handler>>;

/** Ids echoed in messages are quoted and cut short: they come straight from the URL. */
export const quote = (id: string) => JSON.stringify(id.length > 80 ? `${id.slice(0, 80)}…` : id);

export const param = (call: ApiCall, i = 0): string => call.params[i] ?? "";

/** The parsed body, or a 400 `validation_error` naming the first bad field. */
export function validate<S extends z.ZodType>(schema: S, body: BodyResult): z.output<S> {
  if (body.kind === "invalid") throw new ApiFailure(400, "validation_error", "The request body is not valid JSON.");
  const parsed = schema.safeParse(body.kind === "json" ? body.value : undefined);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const field = issue?.path.map(String).join(".") ?? "";
  const message = issue?.message ?? "is invalid";
  throw new ApiFailure(400, "validation_error", field ? `${field}: ${message}` : `Request body: ${message}`, field || undefined);
}

/** The record, or 404 when it does not exist (in this environment) and 403 when another organization owns it. */
export function ownRecord(found: Owned | undefined, org: string, what: string, id: string, field?: string): JsonRecord {
  if (!found) throw new ApiFailure(404, "not_found", `${what} ${quote(id)} was not found.`, field);
  if (found.org !== org) throw new ApiFailure(403, "forbidden", `${what} ${quote(id)} belongs to another organization.`, field);
  return found.record;
}

/** Fills the platform's documented defaults for fields the caller left out. */
export function withDefaults<T extends JsonRecord>(body: T, defaults: JsonRecord): T {
  const out: JsonRecord = { ...body };
  for (const [key, value] of Object.entries(defaults)) if (out[key] === undefined) out[key] = structuredClone(value);
  return out as T;
}
