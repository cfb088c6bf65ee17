/**
 * The `PlatformError` family: everything that can go wrong talking to the platform.
 *
 * These errors are built from plain values only: status, code, message, field, request
 * id. They never hold request headers, the axios config or the axios error (whose
 * `config.headers.Authorization` is a classic API-key leak), and `toJSON()` returns the
 * same safe fields, so logging or serialising one cannot print the key.
 */

/** What kind of failure this is, for callers who branch without `instanceof`. */
export type PlatformErrorKind =
  | "invalid_request" // rejected locally, before anything was sent
  | "validation" // 400 from the platform
  | "auth" // 401
  | "permission" // 403
  | "not_found" // 404
  | "conflict" // 409
  | "rate_limited" // 429
  | "server" // 5xx
  | "timeout" // no answer within the deadline
  | "network" // connection refused, reset, DNS…
  | "bad_response" // the platform answered something we cannot read
  | "http"; // any other status

export interface PlatformErrorInit {
  kind: PlatformErrorKind;
  message: string;
  /** HTTP status from the platform; absent for timeouts, network and local errors. */
  status?: number;
  /** The platform's error code (`validation_error`, `conflict`…) or one of ours. */
  code?: string;
  /** The request field the platform blamed, when it named one. */
  field?: string;
  requestId?: string;
  /** Seconds the platform asked us to wait (`Retry-After`), for 429 and some 503s. */
  retryAfter?: number;
  /** How many attempts were made before giving up. */
  attempts?: number;
  /** Method and path (never the full URL with query, never headers). */
  method?: string;
  path?: string;
}

const DEFAULT_CODES: Record<PlatformErrorKind, string> = {
  invalid_request: "invalid_request",
  validation: "validation_error",
  auth: "unauthorized",
  permission: "forbidden",
  not_found: "not_found",
  conflict: "conflict",
  rate_limited: "rate_limited",
  server: "server_error",
  timeout: "timeout",
  network: "network_error",
  bad_response: "bad_response",
  http: "http_error",
};

export class PlatformError extends Error {
  override name = "PlatformError";
  readonly kind: PlatformErrorKind;
  readonly status: number | undefined;
  readonly code: string;
  readonly field: string | undefined;
  readonly requestId: string | undefined;
  readonly retryAfter: number | undefined;
  readonly attempts: number | undefined;
  readonly method: string | undefined;
  readonly path: string | undefined;

  constructor(init: PlatformErrorInit) {
    super(init.message);
    this.kind = init.kind;
    this.status = init.status;
    this.code = init.code ?? DEFAULT_CODES[init.kind];
    this.field = init.field;
    this.requestId = init.requestId;
    this.retryAfter = init.retryAfter;
    this.attempts = init.attempts;
    this.method = init.method;
    this.path = init.path;
  }

  /** True for failures where trying again later may succeed. */
  get isTransient(): boolean {
    return ["rate_limited", "server", "timeout", "network"].includes(this.kind);
  }

  toJSON(): Record<string, unknown> {
    return {
      name: this.name,
      kind: this.kind,
      message: this.message,
      status: this.status,
      code: this.code,
      field: this.field,
      requestId: this.requestId,
      retryAfter: this.retryAfter,
      attempts: this.attempts,
      method: this.method,
      path: this.path,
    };
  }
}

/** The request was refused locally (bad input); nothing was sent. Carries every issue. */
export class PlatformInvalidRequestError extends PlatformError {
  override name = "PlatformInvalidRequestError";
  readonly issues: readonly { path: string; message: string }[];
  constructor(message: string, issues: { path: string; message: string }[]) {
    super({ kind: "invalid_request", message, field: issues[0]?.path });
    this.issues = issues;
  }
  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), issues: this.issues };
  }
}
export class PlatformValidationError extends PlatformError { override name = "PlatformValidationError"; }
export class PlatformAuthError extends PlatformError { override name = "PlatformAuthError"; }
export class PlatformPermissionError extends PlatformError { override name = "PlatformPermissionError"; }
export class PlatformNotFoundError extends PlatformError { override name = "PlatformNotFoundError"; }
export class PlatformConflictError extends PlatformError { override name = "PlatformConflictError"; }
export class PlatformRateLimitError extends PlatformError { override name = "PlatformRateLimitError"; }
export class PlatformServerError extends PlatformError { override name = "PlatformServerError"; }
export class PlatformTimeoutError extends PlatformError { override name = "PlatformTimeoutError"; }
export class PlatformNetworkError extends PlatformError { override name = "PlatformNetworkError"; }
export class PlatformBadResponseError extends PlatformError { override name = "PlatformBadResponseError"; }

/** Picks the class for a status (or a non-HTTP kind) and builds the error. */
export function platformErrorFor(init: Omit<PlatformErrorInit, "kind"> & { kind?: PlatformErrorKind }): PlatformError {
  const kind = init.kind ?? kindForStatus(init.status);
  const full = { ...init, kind };
  switch (kind) {
    case "validation": return new PlatformValidationError(full);
    case "auth": return new PlatformAuthError(full);
    case "permission": return new PlatformPermissionError(full);
    case "not_found": return new PlatformNotFoundError(full);
    case "conflict": return new PlatformConflictError(full);
    case "rate_limited": return new PlatformRateLimitError(full);
    case "server": return new PlatformServerError(full);
    case "timeout": return new PlatformTimeoutError(full);
    case "network": return new PlatformNetworkError(full);
    case "bad_response": return new PlatformBadResponseError(full);
    default: return new PlatformError(full);
  }
}

export function kindForStatus(status: number | undefined): PlatformErrorKind {
  if (status === undefined) return "network";
  if (status === 400 || status === 422) return "validation";
  if (status === 401) return "auth";
  if (status === 403) return "permission";
  if (status === 404) return "not_found";
  if (status === 409) return "conflict";
  if (status === 429) return "rate_limited";
  if (status >= 500) return "server";
  return "http";
}
