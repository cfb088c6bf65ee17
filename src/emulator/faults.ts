/**
 * Injected faults and latency for the API routes, so a client's retries, timeouts and
 * error handling can be proven against real sockets instead of mocks.
 *
 * Faults queue up in the order they were added; a request takes the first one whose
 * `organization`, `method`, `pathPrefix` and `bodyContains` match, and each fault lasts
 * `count` matching requests.
 */
import { z } from "zod";
import type { FaultSpec } from "./types.js";

/** The `FaultSpec` shape, checked both for `fault()` and for the HTTP control endpoint. */
export const FaultSpecSchema = z
  .object({
    type: z.enum(["status", "hang", "reset", "malformed"]),
    status: z.number().int().min(200).max(599).optional(),
    retryAfter: z.number().int().min(0).optional(),
    count: z.number().int().positive().optional(),
    organization: z.string().min(1).optional(),
    method: z.string().min(1).optional(),
    pathPrefix: z.string().startsWith("/").optional(),
    bodyContains: z.string().min(1).optional(),
  })
  .superRefine((spec, ctx) => {
    if (spec.type === "status" && spec.status === undefined) {
      ctx.addIssue({ code: "custom", path: ["status"], message: "is required with type \"status\"" });
    }
  });

export class FaultSpecError extends Error {
  override readonly name = "FaultSpecError";
}

/** Validates a spec; throws `FaultSpecError` naming the first bad field. */
export function parseFaultSpec(input: unknown): FaultSpec {
  const parsed = FaultSpecSchema.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.map(String).join(".") || "(spec)";
    throw new FaultSpecError(`Invalid fault spec: ${where} ${issue?.message ?? "is invalid"}`);
  }
  return parsed.data;
}

interface PendingFault {
  spec: FaultSpec;
  remaining: number;
}

export class FaultQueue {
  private pending: PendingFault[] = [];

  /** `organizations`: the ids a spec's `organization` may name (a typo would otherwise never match). */
  constructor(private readonly organizations: ReadonlySet<string>) {}

  add(spec: FaultSpec): void {
    const valid = parseFaultSpec(spec);
    if (valid.organization !== undefined && !this.organizations.has(valid.organization)) {
      throw new FaultSpecError(`Invalid fault spec: organization ${JSON.stringify(valid.organization)} is not one of ${[...this.organizations].join(", ")}`);
    }
    this.pending.push({ spec: valid, remaining: valid.count ?? 1 });
  }

  /**
   * The first fault matching this request (`body`: its raw text; `org`: the organization
   * of its key), used up by one; undefined when none applies.
   */
  take(method: string, path: string, body = "", org = ""): FaultSpec | undefined {
    // The common case (benchmarks) has no faults: stay off the hot path entirely.
    if (this.pending.length === 0) return undefined;
    const i = this.pending.findIndex(({ spec }) =>
      (spec.organization === undefined || spec.organization === org) &&
      (spec.method === undefined || spec.method.toUpperCase() === method) &&
      (spec.pathPrefix === undefined || path.startsWith(spec.pathPrefix)) &&
      (spec.bodyContains === undefined || body.includes(spec.bodyContains)));
    if (i < 0) return undefined;
    const fault = this.pending[i]!;
    fault.remaining -= 1;
    if (fault.remaining <= 0) this.pending.splice(i, 1);
    return fault.spec;
  }

  get size(): number {
    return this.pending.length;
  }

  clear(): void {
    this.pending = [];
  }
}

/** Latency added to every API request: `fixedMs` plus uniform random `[0, jitterMs)`. */
export class Latency {
  private fixedMs = 0;
  private jitterMs = 0;

  set(latency: { fixedMs?: number; jitterMs?: number }): void {
    const ok = (n: unknown) => n === undefined || (typeof n === "number" && Number.isFinite(n) && n >= 0);
    if (!ok(latency.fixedMs) || !ok(latency.jitterMs)) {
      throw new FaultSpecError("Invalid latency: fixedMs and jitterMs must be numbers ≥ 0");
    }
    this.fixedMs = latency.fixedMs ?? 0;
    this.jitterMs = latency.jitterMs ?? 0;
  }

  /** ms to wait before this request is handled; 0 means answer at once. */
  next(): number {
    return this.fixedMs + (this.jitterMs > 0 ? Math.random() * this.jitterMs : 0);
  }

  get current(): { fixedMs: number; jitterMs: number } {
    return { fixedMs: this.fixedMs, jitterMs: this.jitterMs };
  }

  clear(): void {
    this.fixedMs = 0;
    this.jitterMs = 0;
  }
}
