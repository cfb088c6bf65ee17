/**
 * The store with a span around each call (`oral_assessments.store getAssessment`), so a
 * slow database shows in the launch's trace. The span names the method only: never an
 * argument (they hold students' e-mails) nor a result.
 *
 * An object whose prototype is the store, so any property beyond the methods (and
 * `instanceof`) still reads through; each method calls the store's own with `this` the
 * store. With no SDK installed the span is a no-op and the call goes straight through.
 */
import { context, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import { tracer } from "../core/tracing.js";
import { STORE_METHODS } from "./types.js";
import { LTI_STORE_METHODS } from "./lti-types.js";

/** Every method a store may have: the exam records' and, when it keeps them, LTI's. */
const TRACED = [...STORE_METHODS, ...LTI_STORE_METHODS];

export function tracedStore<S extends object>(store: S): S {
  const traced = Object.create(store) as S;
  for (const name of TRACED) {
    const method = (store as Record<string, unknown>)[name] as (...args: unknown[]) => Promise<unknown>;
    if (typeof method !== "function") continue;
    Object.defineProperty(traced, name, {
      value: (...args: unknown[]): Promise<unknown> => {
        const span = tracer.startSpan(`oral_assessments.store ${name}`, { kind: SpanKind.INTERNAL });
        if (!span.isRecording()) return method.apply(store, args);
        span.setAttribute("db.operation.name", name);
        return context.with(trace.setSpan(context.active(), span), () => method.apply(store, args)).then(
          (value) => {
            span.end();
            return value;
          },
          (error: unknown) => {
            span.setAttribute("error.type", (error as { code?: unknown })?.code === undefined ? "error" : String((error as { code: unknown }).code));
            span.setStatus({ code: SpanStatusCode.ERROR });
            span.end();
            throw error;
          },
        );
      },
      enumerable: false,
      writable: true,
      configurable: true,
    });
  }
  return traced;
}
