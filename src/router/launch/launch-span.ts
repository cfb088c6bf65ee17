/**
 * The launch's span: `GET /launch/:examId` from the request to its answer, with the HTTP
 * server semantic attributes (`http.request.method`, `http.route`,
 * `http.response.status_code`) and the launch's outcome and path once known
 * (`oral_assessments.launch.*`). Never the student (no id, no e-mail) nor the token.
 *
 * A SERVER span when nothing traces the request already; under an HTTP instrumentation's
 * server span it is an INTERNAL child, so a trace has one server span per request. It is
 * the active span while the launch runs, so the platform call and the store calls it
 * makes are its children.
 */
import { context, SpanKind, SpanStatusCode, trace, type Span } from "@opentelemetry/api";
import type { Request, RequestHandler } from "express";
import { tracer } from "../../core/tracing.js";

const SPANS = new WeakMap<Request, Span>();

/** `route`: the route's path under the mount (`/launch/:examId`). */
export function launchSpan(route: string): RequestHandler {
  return (req, res, next) => {
    const parent = trace.getActiveSpan();
    const span = tracer.startSpan(`${req.method} ${route}`, { kind: parent ? SpanKind.INTERNAL : SpanKind.SERVER });
    if (!span.isRecording()) return next();
    // The mount path as Express matched it, then the route's template: no id of the request.
    span.setAttributes({ "http.request.method": req.method, "http.route": `${req.baseUrl}${route}` });
    SPANS.set(req, span);
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      if (res.headersSent) span.setAttribute("http.response.status_code", res.statusCode);
      if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    };
    res.once("finish", end);
    res.once("close", end);
    context.with(trace.setSpan(context.active(), span), next);
  };
}

/** Adds the launch's outcome to its span, if it has one (nothing is built when it has none). */
export function annotateLaunch(req: Request, outcome: string, servedBy: string, kind: string, via: string): void {
  SPANS.get(req)?.setAttributes({
    "oral_assessments.launch.outcome": outcome, "oral_assessments.launch.served_by": servedBy, "oral_assessments.launch.kind": kind, "oral_assessments.launch.via": via,
  });
}
