/**
 * The API pipeline for `/api/v1/<env>/…`, in the order a request meets it:
 *
 *   body (≤ maxBodyBytes) → latency → auth (401) → injected fault → rate limit (429)
 *   → 413 → route (404/405) → handler → envelope
 *
 * Faults come before the rate limit on purpose: a faulted request neither spends nor is
 * refused by the key's budget, so a test can inject three 503s without also having to
 * reason about 429s. Faulted status answers still carry the (uncounted) rate headers.
 *
 * Nothing here ever writes the key anywhere: the log entry holds the env and the key's
 * organization id only, auth messages name the environment, not the key. Rate windows are
 * per key, and a key belongs to one organization (keys.ts), so organizations never share one.
 */
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from "node:http";
import { delay, type EmulatorContext } from "./context.js";
import { codeForStatus, newRequestId, pathSegments, readBody, sendEmpty, sendJson, sendText } from "./http.js";
import type { ApiEnv, KeyInfo } from "./options.js";
import type { RateDecision } from "./rate-window.js";
import { ApiFailure, matchRoute } from "./routes.js";
import type { FaultSpec, ReceivedRequest } from "./types.js";

const API_PATH = /^\/api\/v1\/(dev|prod)(\/.*)?$/;

function errorBody(code: string, message: string, requestId: string, field?: string) {
  return { error: field === undefined ? { code, message } : { code, message, field }, meta: { requestId } };
}

function rateHeaders(rate: RateDecision): OutgoingHttpHeaders {
  return { "X-RateLimit-Limit": rate.limit, "X-RateLimit-Remaining": rate.remaining, "X-RateLimit-Reset": rate.resetAt };
}

/** Finds the key's identity, or why it is refused. The message never contains the key. */
function authenticate(ctx: EmulatorContext, header: string | undefined, env: ApiEnv): { key: string; info: KeyInfo } | string {
  const match = header ? /^Bearer +(\S+) *$/i.exec(header) : null;
  if (!match) return "Missing API key: send the header Authorization: Bearer <key>.";
  const key = match[1]!;
  const info = ctx.options.keys.get(key);
  if (!info) return "The API key is not valid: it is unknown or was revoked.";
  if (info.env !== env) {
    return `This key is for the ${info.env} environment; send it to /api/v1/${info.env}, not /api/v1/${env}.`;
  }
  return { key, info };
}

export async function handleApi(ctx: EmulatorContext, req: IncomingMessage, res: ServerResponse, path: string, query = ""): Promise<void> {
  const requestId = newRequestId();
  const method = req.method ?? "GET";
  const match = API_PATH.exec(path);
  if (!match) {
    req.resume();
    sendJson(res, 404, errorBody("not_found", "Not an API path: use /api/v1/dev/… or /api/v1/prod/….", requestId),
      { "X-Request-Id": requestId });
    return;
  }
  const env = match[1] as ApiEnv;
  const sub = match[2] ?? "/";
  const started = Date.now();
  const entry = ctx.log.add({ method, path: sub, env, status: 0, at: started, body: undefined });

  const body = await readBody(req, ctx.options.maxBodyBytes);
  if (body.kind === "aborted") return;
  if (body.kind === "json") entry.body = body.value;
  else if (body.kind === "invalid") entry.body = body.text;
  await delay(ctx, ctx.latency.next());

  let headers: OutgoingHttpHeaders = { "X-Request-Id": requestId };
  const finish = (status: number, payload?: unknown) => {
    entry.status = status;
    if (payload === undefined) sendEmpty(res, status, headers);
    else sendJson(res, status, payload, headers);
    ctx.logger.debug({ requestId, method, env, path: sub, status, ms: Date.now() - started }, "emulator request");
  };
  const fail = (failure: ApiFailure) => finish(failure.status, errorBody(failure.code, failure.message, requestId, failure.field));

  const auth = authenticate(ctx, req.headers.authorization, env);
  if (typeof auth === "string") return fail(new ApiFailure(401, "unauthorized", auth));
  entry.org = auth.info.org;
  const limit = ctx.limits[env];

  const fault = ctx.faults.take(method, sub, body.kind === "json" || body.kind === "invalid" ? body.text : "", auth.info.org);
  // The platform's own clock (`setClockSkew`): what its Date and Reset headers say.
  const skew = ctx.clockSkewMs;
  const platformNow = skew === 0 ? Date.now() : Date.now() + skew;
  if (skew !== 0) headers.Date = new Date(platformNow).toUTCString();
  if (fault) {
    headers = { ...headers, ...rateHeaders(ctx.limiter.peek(auth.key, limit, platformNow)) };
    return applyFault(ctx, req, res, fault, { entry, headers, requestId });
  }

  const rate = ctx.limiter.take(auth.key, limit, platformNow);
  headers = { ...headers, ...rateHeaders(rate) };
  if (!rate.allowed) {
    headers["Retry-After"] = rate.retryAfter;
    const windowS = Math.round(ctx.limits.windowMs / 1000);
    return fail(new ApiFailure(429, "rate_limited",
      `Rate limit of ${limit} requests per ${windowS} s exceeded for this ${env} key; retry after ${rate.retryAfter} s.`));
  }

  if (body.kind === "too_large") {
    headers.Connection = "close";
    return fail(new ApiFailure(413, "payload_too_large", `The request body exceeds ${ctx.options.maxBodyBytes} bytes.`));
  }

  const segments = pathSegments(sub);
  if (!segments) return fail(new ApiFailure(400, "validation_error", "The path has malformed percent-encoding."));
  const route = matchRoute(method, segments);
  if (route.kind === "not_found") return fail(new ApiFailure(404, "not_found", `No such endpoint: ${method} ${sub.slice(0, 200)}.`));
  if (route.kind === "method_not_allowed") {
    headers.Allow = route.allow.join(", ");
    return fail(new ApiFailure(405, "method_not_allowed", `${method} is not allowed here; use ${route.allow.join(" or ")}.`));
  }

  try {
    const outcome = await route.handler({
      ctx, env, state: ctx.states[env], org: auth.info.org, params: route.params, query: new URLSearchParams(query), body,
    });
    if (outcome.data === undefined) return finish(outcome.status);
    finish(outcome.status, shape(ctx, outcome.data, requestId));
  } catch (err) {
    if (err instanceof ApiFailure) return fail(err);
    ctx.logger.error({ requestId, method, env, path: sub, error: err instanceof Error ? err.message : String(err) }, "emulator handler failed");
    fail(new ApiFailure(500, "server_error", "The emulator failed to handle this request."));
  }
}

/** The vendor's envelope, a bare record, or (mixed) each in turn. */
function shape(ctx: EmulatorContext, data: unknown, requestId: string): unknown {
  const mode = ctx.options.responseShape;
  const bare = mode === "bare" || (mode === "mixed" && ctx.shapeCounter++ % 2 === 1);
  return bare ? data : { data, meta: { requestId } };
}

function applyFault(
  ctx: EmulatorContext,
  req: IncomingMessage,
  res: ServerResponse,
  fault: FaultSpec,
  { entry, headers, requestId }: { entry: ReceivedRequest; headers: OutgoingHttpHeaders; requestId: string },
): void {
  ctx.logger.info({ requestId, method: entry.method, env: entry.env, path: entry.path, fault: fault.type, status: fault.status },
    "emulator fault injected");
  switch (fault.type) {
    case "hang":
      // Never answer. The socket stays open until the client gives up or close() ends it.
      return;
    case "reset":
      req.socket.destroy();
      return;
    case "malformed":
      entry.status = 200;
      sendText(res, 200, '{"data": {"_id": "', "application/json; charset=utf-8", headers);
      return;
    case "status": {
      const status = fault.status ?? 500;
      entry.status = status;
      if (fault.retryAfter !== undefined) headers["Retry-After"] = fault.retryAfter;
      if (status === 204 || status === 304) {
        sendEmpty(res, status, headers);
        return;
      }
      sendJson(res, status, errorBody(codeForStatus(status), `Injected fault: HTTP ${status}.`, requestId), headers);
    }
  }
}
