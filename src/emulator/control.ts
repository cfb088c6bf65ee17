/**
 * HTTP control endpoints, for driving an emulator that runs in another process (the CLI,
 * `npm start`, a benchmark). Same operations as the `Emulator` object.
 *
 * They have no auth, so they answer loopback clients only (127.0.0.0/8, ::1) unless
 * `controlFromAnyAddress` is set; others get 403. A loopback Host header is required too,
 * cross-site browser requests are refused and POST bodies must be JSON (control-guard.ts:
 * DNS rebinding and cross-site forms). Keys are never part of any answer.
 *
 *   GET    /__emulator               this list, and the organizations (id, name, exam host)
 *   GET    /__emulator/state         records (each with its `env` and `org`) and tickets (`EmulatorStateSnapshot`)
 *   POST   /__emulator/reset         clear records, tickets, windows, faults, latency, log
 *   POST   /__emulator/faults        add a fault; body: a `FaultSpec`, e.g. {"type":"status","status":503,"count":2}
 *   DELETE /__emulator/faults        remove all faults and latency
 *   POST   /__emulator/latency       body: {"fixedMs":200,"jitterMs":50}
 *   POST   /__emulator/rate-limits   body: {"dev":60,"prod":600,"windowMs":60000}
 *   POST   /__emulator/clock         body: {"skewMs":-60000}: the platform's clock that far off ours
 *   GET    /__emulator/requests      the request log (each with its key's `org`), oldest first; `?limit=N` → the last N
 *
 * Answers are plain JSON (no envelope); errors are `{ error: { code, message } }` with 400,
 * 403, 404, 405 or 415.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { isWholeNumber } from "../core/whole-number.js";
import type { EmulatorContext } from "./context.js";
import { FaultSpecError } from "./faults.js";
import { refuseControl } from "./control-guard.js";
import { readBody, sendJson } from "./http.js";
import type { Emulator } from "./types.js";

const ENDPOINTS = [
  "GET /__emulator/state",
  "POST /__emulator/reset",
  "POST /__emulator/faults",
  "DELETE /__emulator/faults",
  "POST /__emulator/latency",
  "POST /__emulator/rate-limits",
  "POST /__emulator/clock",
  "GET /__emulator/requests?limit=N",
];

const CONTROL_BODY_LIMIT = 64 * 1024;

function fail(res: ServerResponse, status: number, code: string, message: string): void {
  sendJson(res, status, { error: { code, message } }, { "Cache-Control": "no-store" });
}

function ok(res: ServerResponse, status: number, body: unknown): void {
  sendJson(res, status, body, { "Cache-Control": "no-store" });
}

export async function handleControl(
  ctx: EmulatorContext,
  emulator: Emulator,
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  query: string,
): Promise<void> {
  const refused = refuseControl(req, ctx.options.controlFromAnyAddress);
  if (refused) {
    req.resume();
    return fail(res, refused.status, refused.code, refused.message);
  }
  const body = await readBody(req, CONTROL_BODY_LIMIT);
  if (body.kind === "aborted") return;
  if (body.kind === "too_large") return fail(res, 413, "payload_too_large", "Control bodies are limited to 64 KiB.");
  if (body.kind === "invalid") return fail(res, 400, "validation_error", "The request body is not valid JSON.");
  const input = body.kind === "json" ? body.value : undefined;
  const route = `${req.method ?? "GET"} ${path.replace(/\/+$/, "")}`;

  try {
    switch (route) {
      case "GET /__emulator":
        return ok(res, 200, {
          endpoints: ENDPOINTS,
          // Picked field by field: an organization object also holds its keys.
          organizations: emulator.organizations.map(({ id, name, examHost }) => ({ id, name, examHost })),
        });
      case "GET /__emulator/state":
        return ok(res, 200, emulator.state());
      case "POST /__emulator/reset":
        emulator.reset();
        return ok(res, 200, { ok: true });
      case "POST /__emulator/faults":
        emulator.fault(input as Parameters<Emulator["fault"]>[0]);
        return ok(res, 201, { ok: true, pendingFaults: ctx.faults.size });
      case "DELETE /__emulator/faults":
        emulator.clearFaults();
        return ok(res, 200, { ok: true });
      case "POST /__emulator/latency":
        emulator.setLatency((input ?? {}) as Parameters<Emulator["setLatency"]>[0]);
        return ok(res, 200, { ok: true, latency: ctx.latency.current });
      case "POST /__emulator/rate-limits":
        emulator.setRateLimits((input ?? {}) as Parameters<Emulator["setRateLimits"]>[0]);
        return ok(res, 200, { ok: true, rateLimits: { ...ctx.limits } });
      case "POST /__emulator/clock":
        emulator.setClockSkew((input as { skewMs?: unknown } | undefined)?.skewMs as number);
        return ok(res, 200, { ok: true, clockSkewMs: ctx.clockSkewMs });
      case "GET /__emulator/requests": {
        const all = emulator.requests;
        const limit = Number(new URLSearchParams(query).get("limit") ?? NaN);
        return ok(res, 200, isWholeNumber(limit, 0) ? all.slice(all.length - limit) : all);
      }
    }
  } catch (err) {
    // Bad input from the caller (a fault spec, latency or limits that do not validate).
    if (err instanceof FaultSpecError || err instanceof TypeError || err instanceof RangeError) {
      return fail(res, 400, "validation_error", err.message);
    }
    throw err;
  }
  const known = ENDPOINTS.some((e) => e.split(" ")[1]!.split("?")[0] === path.replace(/\/+$/, ""));
  return known
    ? fail(res, 405, "method_not_allowed", `${req.method ?? "GET"} is not allowed on ${path}.`)
    : fail(res, 404, "not_found", "No such control endpoint; GET /__emulator lists them.");
}
