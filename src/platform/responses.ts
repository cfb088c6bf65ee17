/**
 * Reading what the platform answered: success bodies (enveloped or bare) into records,
 * error bodies into the fields of a `PlatformError`. Upstream text is scrubbed of the key
 * and of bearer tokens before it can reach a message, and cut to a sane length.
 */
import type { z } from "zod";
import { scrubSecrets } from "../core/redact.js";
import { kindForStatus, platformErrorFor, type PlatformErrorInit } from "./errors.js";
import { ErrorBody, issuesOf, unwrapEnvelope, type Meta } from "./schemas.js";
import type { TransportResponse } from "./transport.js";

const MAX_MESSAGE = 500;
const NOT_JSON = Symbol("not JSON");

/** Empty text is `undefined` (204, or a 200 with no body); unparseable text is `NOT_JSON`. */
export function parseJson(text: string): unknown {
  if (text.trim() === "") return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return NOT_JSON;
  }
}

export function isNotJson(value: unknown): value is typeof NOT_JSON {
  return value === NOT_JSON;
}

/** Splits a success body into data and meta; the request id falls back to `X-Request-Id`. */
export function successOf(body: unknown, headerRequestId: string | undefined): { data: unknown; meta: Meta | undefined } {
  const { data, meta } = unwrapEnvelope(body);
  if (headerRequestId === undefined || meta?.requestId !== undefined) return { data, meta };
  return { data, meta: { ...meta, requestId: headerRequestId } };
}

export interface CallContext {
  method: string;
  /** Path without query. */
  path: string;
  secrets: readonly string[];
}

/**
 * The fields of the error for a non-2xx answer (the caller adds `attempts` when it gives
 * up). Reads the vendor's error body when there is one; a proxy's HTML page or an empty
 * body still gives a useful message from the status.
 */
export function errorInitFor(response: TransportResponse, ctx: CallContext): PlatformErrorInit {
  const parsed = ErrorBody.safeParse(parseJson(response.text));
  const upstream = parsed.success ? parsed.data : undefined;
  const code = upstream ? clean(upstream.error.code, ctx.secrets, 100) : undefined;
  const detail = upstream ? clean(upstream.error.message, ctx.secrets, MAX_MESSAGE) : describeStatus(response.status);
  const init: PlatformErrorInit = {
    kind: kindForStatus(response.status),
    status: response.status,
    message: `${ctx.method} ${ctx.path} → ${response.status}${code ? ` ${code}` : ""}: ${detail}`,
    code,
    field: upstream?.error.field !== undefined ? clean(upstream.error.field, ctx.secrets, 200) : undefined,
    requestId: upstream?.meta?.requestId ?? response.requestId,
    retryAfter: response.retryAfterMs === undefined ? undefined : Math.ceil(response.retryAfterMs / 1000),
    method: ctx.method,
    path: ctx.path,
  };
  return init;
}

/**
 * Checks a success payload against a record schema. Unknown fields are kept (the schemas
 * are loose); a payload without what we rely on (`_id`, `token`…) is a
 * `PlatformBadResponseError`. Issue messages name fields, never values.
 */
export function readRecord<T extends z.ZodType>(schema: T, data: unknown, what: string, ctx: CallContext & { status: number; requestId: string | undefined }): z.output<T> {
  const parsed = schema.safeParse(data);
  if (parsed.success) return parsed.data;
  const issues = issuesOf(parsed.error).slice(0, 5).map((i) => `${i.path}: ${i.message}`).join("; ");
  throw platformErrorFor({
    kind: "bad_response",
    status: ctx.status,
    message: `${ctx.method} ${ctx.path} → ${ctx.status}: the platform's answer is not ${what} (${issues}).`,
    requestId: ctx.requestId,
    method: ctx.method,
    path: ctx.path,
  });
}

function describeStatus(status: number): string {
  if (status >= 300 && status < 400) return "the platform answered with a redirect, which the client does not follow";
  if (status >= 500) return "the platform failed and sent no readable error";
  return "the platform sent no readable error";
}

function clean(text: string, secrets: readonly string[], max: number): string {
  const scrubbed = scrubSecrets(text, secrets);
  return scrubbed.length > max ? `${scrubbed.slice(0, max)}…` : scrubbed;
}
