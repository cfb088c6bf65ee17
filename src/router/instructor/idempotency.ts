/**
 * `Idempotency-Key` on every POST of the instructor API (as payment APIs do): a retry of
 * a create replays the first answer instead of creating a second record on the platform.
 *
 * - Scope: the key belongs to the request's organization and, within it, to the signed-in
 *   user (`idempotencyUser`: `req.user.id`, else `orgInternalId`, `email`, `username`);
 *   another organization's or another user's identical key is another record.
 * - The request is the method, the path and the JSON body, hashed (SHA-256): the same key
 *   with another request is a 422 `idempotency_key_reused`.
 * - Recorded: the status and body of 2xx and 4xx answers (the platform said yes or no),
 *   except 408 and 429. A 5xx (platform down, timeout, our own error) is abandoned, so a
 *   retry tries again.
 * - A duplicate arriving while the first is in flight polls the store for up to
 *   `IDEMPOTENCY_WAIT_MS`, then gets 409 `idempotency_in_progress` with `Retry-After`.
 *   The claim is a UNIQUE (organization, user, key) row, so this holds across instances
 *   sharing a PostgreSQL store.
 * - Replays carry `Idempotent-Replayed: true`. Records expire after 24 h (the store's
 *   `IDEMPOTENCY_TTL_MS`).
 * - No header: the request runs as before.
 */
import { createHash } from "node:crypto";
import type { Request, RequestHandler, Response } from "express";
import type { Logger } from "../../core/logger.js";
import type { IdempotencyKey, OralStore } from "../../store/types.js";
import type { OrganizationIdOf } from "../shared/request-organization.js";
import { asyncHandler } from "../shared/guards.js";
import { invalidInput, sendProblem } from "../shared/problem.js";
import { userOf } from "../shared/user.js";
import { privateAnswerHeaders } from "../shared/json-answer.js";

export const IDEMPOTENCY_HEADER = "Idempotency-Key";
/** How long a duplicate waits for the first request's answer: above the platform client's default deadline with a retry. */
export const IDEMPOTENCY_WAIT_MS = 15_000;
const POLL_MS = 50;
/** Printable ASCII without spaces, 1-255 characters: a UUID, a ULID or any client token fits. */
const KEY_FORMAT = /^[\x21-\x7e]{1,255}$/;

/** What is recorded: the answer's status, content type and JSON body (null when it had none). */
interface RecordedAnswer {
  contentType: string | undefined;
  json: unknown;
}

/** The user the key is scoped to; undefined when the user carries no stable id. */
export function idempotencyUser(req: Request): string | undefined {
  const user = userOf(req);
  for (const field of ["id", "orgInternalId", "email", "username"]) {
    const value = user?.[field];
    if ((typeof value === "string" && value.length > 0) || typeof value === "number") return `${field}:${value}`;
  }
  return undefined;
}

function requestHash(req: Request): string {
  return createHash("sha256").update(JSON.stringify([req.method, `${req.baseUrl}${req.path}`.toLowerCase(), req.body ?? null])).digest("base64url");
}

/** 2xx and the client's 4xx are final answers; 408, 429 and 5xx are worth retrying. */
function recordable(status: number): boolean {
  return (status >= 200 && status < 300) || (status >= 400 && status < 500 && status !== 408 && status !== 429);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function idempotentPost(store: OralStore, organizationIdOf: OrganizationIdOf, logger: Logger, waitMs = IDEMPOTENCY_WAIT_MS): RequestHandler {
  return asyncHandler(async (req, res, next) => {
    const key = req.get(IDEMPOTENCY_HEADER);
    if (key === undefined) return next();
    if (!KEY_FORMAT.test(key)) {
      sendProblem(res, invalidInput([{ path: IDEMPOTENCY_HEADER, message: "must be 1-255 printable ASCII characters without spaces (e.g. a UUID)" }]));
      return;
    }
    const user = idempotencyUser(req);
    if (user === undefined) {
      sendProblem(res, invalidInput([{ path: IDEMPOTENCY_HEADER, message: "needs a signed-in user with an id (req.user.id) to scope the key to" }]));
      return;
    }
    const id: IdempotencyKey = { org: organizationIdOf(req), user, key };
    const bodyHash = requestHash(req);
    const deadline = Date.now() + waitMs;
    for (;;) {
      const found = await store.beginIdempotent({ ...id, bodyHash });
      if (found.state === "new") break;
      if (found.state === "mismatch") {
        sendProblem(res, {
          status: 422, code: "idempotency_key_reused", title: "Idempotency-Key reused",
          detail: `This ${IDEMPOTENCY_HEADER} was sent before with another request. Use a new key for a new request.`,
          errors: [{ path: IDEMPOTENCY_HEADER, message: "was used with another request" }],
        });
        return;
      }
      if (found.state === "done") {
        replay(res, found.status, found.body as RecordedAnswer | null);
        return;
      }
      if (Date.now() >= deadline) {
        sendProblem(res, {
          status: 409, code: "idempotency_in_progress", title: "Request in progress",
          detail: `A request with this ${IDEMPOTENCY_HEADER} is still in progress. Retry shortly to get its answer.`, retryAfter: 1,
        });
        return;
      }
      await sleep(POLL_MS);
    }
    recordAnswer(res, id, store, logger);
    next();
  });
}

function replay(res: Response, status: number, answer: RecordedAnswer | null): void {
  res.status(status);
  res.setHeader("Idempotent-Replayed", "true");
  privateAnswerHeaders(res);
  if (answer?.json === null || answer?.json === undefined) {
    res.end();
    return;
  }
  res.setHeader("Content-Type", answer.contentType ?? "application/json; charset=utf-8");
  res.end(JSON.stringify(answer.json));
}

/**
 * Holds the answer back until the store has it (completed, or abandoned for a 5xx), so a
 * client that retries after seeing the answer always finds it recorded. A client that
 * disconnects changes nothing: the handler still finishes (creates are not tied to the
 * connection) and its answer is recorded for the retry.
 */
function recordAnswer(res: Response, id: IdempotencyKey, store: OralStore, logger: Logger): void {
  let settled = false;
  const end = res.end.bind(res) as (...args: unknown[]) => Response;
  const settle = async (chunk: unknown): Promise<void> => {
    settled = true;
    const status = res.statusCode;
    try {
      if (recordable(status)) {
        const text = chunk === undefined || chunk === null ? "" : Buffer.isBuffer(chunk) ? chunk.toString("utf8") : String(chunk);
        let json: unknown = null;
        if (text.length > 0) json = JSON.parse(text);
        const contentType = res.getHeader("content-type");
        await store.completeIdempotent({ ...id, status, body: { contentType: typeof contentType === "string" ? contentType : undefined, json } satisfies RecordedAnswer });
      } else {
        await store.abandonIdempotent(id);
      }
    } catch (error) {
      // The answer still goes out; the key is given up so a retry can run again.
      logger.warn({ event: "idempotency_record_failed", error: (error as Error)?.message }, "could not record an idempotent answer");
      await store.abandonIdempotent(id).catch(() => undefined);
    }
  };
  (res as { end: unknown }).end = (...args: unknown[]) => {
    if (settled) return end(...args);
    const chunk = typeof args[0] === "function" ? undefined : args[0];
    void settle(chunk).finally(() => end(...args));
    return res;
  };
}
