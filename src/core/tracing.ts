/**
 * The package's OpenTelemetry tracer. `@opentelemetry/api` is the API only: until the app
 * installs an SDK (and a context manager) every span is a no-op, which costs an object
 * and a method call. Where building a span's name or attributes costs more than that,
 * callers look at `span.isRecording()` first.
 *
 * Attributes follow the HTTP semantic conventions (`http.request.method`,
 * `http.response.status_code`, `http.route`, `server.address`, `url.template`) plus a few
 * of our own under `oral_assessments.`. Never a token, a key, an e-mail or a student id:
 * see docs/ops.md, "Traces".
 */
import { trace, type Tracer } from "@opentelemetry/api";

const TRACER_NAME = "express-oral-assessments";

/** A proxy: it follows whatever provider the app registers, before or after this module loads. */
export const tracer: Tracer = trace.getTracer(TRACER_NAME);
