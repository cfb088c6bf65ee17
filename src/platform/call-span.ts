/**
 * The client span of one platform call (all its attempts): `POST /students/sign-in-token`,
 * with the HTTP client semantic attributes. The URL is named by its template, never in
 * full: ids belong to no span, and the key (a header) and the body never reach one.
 */
import { context, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import { tracer } from "../core/tracing.js";
import { endpointTemplate } from "./endpoint-template.js";
import type { HttpMethod } from "./retry.js";

export interface CallSpan {
  /** Runs one attempt with the span active, so an HTTP instrumentation's span nests under it. */
  attempt<T>(send: () => Promise<T>): Promise<T>;
  /** The last attempt's answer (a status) or why none came. */
  answered(status: number | undefined, failure?: string): void;
  end(error?: unknown): void;
}

/** Undefined when nothing records spans (no SDK, or not sampled): the call does no tracing work. */
export function startCallSpan(method: HttpMethod, path: string, server: URL): CallSpan | undefined {
  const span = tracer.startSpan(`${method}`, { kind: SpanKind.CLIENT });
  if (!span.isRecording()) return undefined;
  const template = endpointTemplate(method, path);
  span.updateName(`${method} ${template}`);
  span.setAttributes({
    "http.request.method": method,
    "url.template": template,
    "server.address": server.hostname,
    "server.port": Number(server.port || (server.protocol === "https:" ? 443 : 80)),
  });
  let attempts = 0;
  let lastStatus: number | undefined;
  return {
    attempt(send) {
      attempts += 1;
      if (attempts > 1) span.setAttribute("http.request.resend_count", attempts - 1);
      return context.with(trace.setSpan(context.active(), span), send);
    },
    answered(status, failure) {
      lastStatus = status;
      if (status !== undefined) span.setAttribute("http.response.status_code", status);
      if (failure !== undefined) span.setAttribute("error.type", failure);
    },
    end(error) {
      if (error !== undefined || (lastStatus !== undefined && lastStatus >= 400)) {
        // The error's kind and code only: a platform error's message may quote the request.
        const kind = (error as { kind?: unknown } | undefined)?.kind;
        const type = lastStatus !== undefined && lastStatus >= 400 ? String(lastStatus) : typeof kind === "string" ? kind : "error";
        span.setAttribute("error.type", type);
        span.setStatus({ code: SpanStatusCode.ERROR });
      }
      span.end();
    },
  };
}
