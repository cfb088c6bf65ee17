/**
 * The router's own JSON body parser, scoped to its routes, with a size limit. It steps
 * aside when the host app already parsed the body (its `express.json()` ran first, or
 * the stream was consumed by something else), so mounting order does not matter.
 *
 * The common body (a declared `Content-Length` within the limit, no content encoding,
 * `application/json` in UTF-8) is read here; body-parser reads everything else (chunked
 * bodies, gzip/deflate/br, other charsets, bodies over the limit) and makes every error
 * but a malformed common body. Why not body-parser for all: on an instructor POST it is
 * the largest single cost in the router (`node bench/run.js --only overhead` shows it),
 * for a read that needs a few listeners and a `JSON.parse`. What it does for the common body, this does the same way: an empty body
 * is `{}`, a UTF-8 byte order mark is dropped, the top level must be an object or an
 * array (`strict`), and a failure is an error of the same `type`
 * (`entity.parse.failed`, `request.aborted`) for `bodyParseErrors` below.
 */
import express, { type ErrorRequestHandler, type Request, type RequestHandler } from "express";
import { invalidInput, sendProblem } from "../shared/problem.js";

/**
 * The deepest nesting a body may have. Our bodies nest four or five levels, and an unknown
 * field may hold a value nested up to 32 deep (`pass-through.ts`, which names the field);
 * a body nested thousands deep is an attack on whatever walks it recursively
 * (`JSON.stringify` for the idempotency hash, zod) and is refused before anything reads it.
 */
export const MAX_BODY_DEPTH = 64;

/** `limit`: the largest body accepted, in bytes. */
export function jsonBody(limit: number): RequestHandler {
  const parse = express.json({ limit, strict: true });
  return (req, res, next) => {
    // No route reads a GET's body: the parser would only look for one, on every read.
    if (req.method === "GET" || req.method === "HEAD") return next();
    const checked = (error?: unknown) => next(error ?? depthError(req.body));
    // Parsed by the host app's own parser: its body is checked all the same.
    const alreadyParsed = (req as { _body?: boolean })._body === true || req.readableEnded;
    if (alreadyParsed) return checked();
    if (!isCommonBody(req, limit)) return parse(req, res, checked);
    readPlainJson(req, checked);
  };
}

/**
 * An `entity.too.deep` error when `body` nests deeper than MAX_BODY_DEPTH, naming the
 * top-level field that does; walked with a stack, never recursively.
 */
function depthError(body: unknown): Error | undefined {
  if (typeof body !== "object" || body === null) return undefined;
  const stack: [unknown, number, string][] = Object.entries(body).map(([field, value]) => [value, 2, Array.isArray(body) ? "(body)" : field]);
  while (stack.length > 0) {
    const [value, depth, field] = stack.pop()!;
    if (typeof value !== "object" || value === null) continue;
    if (depth > MAX_BODY_DEPTH) return Object.assign(bodyError(400, "entity.too.deep", `${field} nests deeper than ${MAX_BODY_DEPTH} levels.`), { field });
    for (const child of Object.values(value)) stack.push([child, depth + 1, field]);
  }
  return undefined;
}

/** `application/json`, with no parameter but an optional UTF-8 charset. */
const PLAIN_JSON_TYPE = /^application\/json[ \t]*(?:;[ \t]*charset=(?:utf-8|"utf-8")[ \t]*)?$/i;

/**
 * True when the request declares a length and is plainly `application/json` (see
 * PLAIN_JSON_TYPE): then `req.is("application/json")` is true too, without parsing the
 * header into a media type. False means "ask `req.is`", not "not JSON".
 */
export function declaresPlainJson(req: Request): boolean {
  const { headers } = req;
  const type = headers["content-type"];
  return type !== undefined && headers["content-length"] !== undefined && /^\d{1,15}$/.test(headers["content-length"]) && PLAIN_JSON_TYPE.test(type);
}

/** True when the body is the common kind (see the top of the file), which this file reads itself. */
function isCommonBody(req: Request, limit: number): boolean {
  const encoding = req.headers["content-encoding"];
  if (encoding !== undefined && encoding.toLowerCase() !== "identity") return false;
  return req.headers["transfer-encoding"] === undefined && declaresPlainJson(req) && Number(req.headers["content-length"]) <= limit;
}

/** Reads the (declared, bounded) body, sets `req.body` and calls `next`, once. */
function readPlainJson(req: Request, next: (error?: unknown) => void): void {
  const chunks: Buffer[] = [];
  let done = false;
  const finish = (error?: unknown) => {
    if (done) return;
    done = true;
    req.off("data", onData);
    req.off("end", onEnd);
    req.off("error", onGone);
    req.off("close", onGone);
    next(error);
  };
  const onData = (chunk: Buffer) => chunks.push(chunk);
  const onEnd = () => {
    let text = chunks.length === 1 ? chunks[0]!.toString("utf8") : Buffer.concat(chunks).toString("utf8");
    if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    try {
      req.body = parseStrict(text);
    } catch {
      return finish(bodyError(400, "entity.parse.failed", "The request body is not valid JSON."));
    }
    finish();
  };
  // Closed before its end (the client went away): nobody is listening for an answer.
  const onGone = () => finish(bodyError(400, "request.aborted", "The request was aborted."));
  req.body = undefined;
  req.on("data", onData);
  req.on("end", onEnd);
  req.on("error", onGone);
  req.on("close", onGone);
}

/** body-parser's `strict`: an empty body is `{}`; otherwise the top level is an object or an array. */
function parseStrict(text: string): unknown {
  if (text.length === 0) return {};
  const first = /^[ \t\n\r]*(.?)/s.exec(text)?.[1];
  if (first !== "{" && first !== "[") throw new SyntaxError("not an object or array");
  return JSON.parse(text);
}

function bodyError(status: number, type: string, message: string): Error {
  return Object.assign(new Error(message), { status, statusCode: status, expose: true, type });
}

/** Turns body-parser failures into problem+json instead of Express's HTML error page. */
export const bodyParseErrors: ErrorRequestHandler = (err, _req, res, next) => {
  const type = (err as { type?: string } | undefined)?.type;
  switch (type) {
    case "entity.parse.failed":
      return sendProblem(res, { status: 400, code: "malformed_json", title: "Malformed JSON", detail: "The request body is not valid JSON.", errors: [{ path: "(body)", message: "is not valid JSON" }] });
    case "entity.too.deep": {
      const field = (err as { field?: string }).field ?? "(body)";
      return sendProblem(res, invalidInput([{ path: field, message: `must be nested at most ${MAX_BODY_DEPTH} levels deep` }], `The request body nests deeper than ${MAX_BODY_DEPTH} levels under ${field}.`));
    }
    case "entity.too.large":
      return sendProblem(res, { status: 413, code: "body_too_large", title: "Body too large", detail: "The request body is larger than this endpoint accepts." });
    case "encoding.unsupported":
    case "charset.unsupported":
      return sendProblem(res, { status: 415, code: "unsupported_encoding", title: "Unsupported encoding", detail: "Send the body as UTF-8 JSON without an unsupported content encoding." });
    case "request.aborted":
      return; // the client went away; nobody is listening
    default:
      return next(err);
  }
};
