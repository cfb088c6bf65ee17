/**
 * The router's own JSON body parser, scoped to its routes, with a size limit. It steps
 * aside when the host app already parsed the body (its `express.json()` ran first, or
 * the stream was consumed by something else), so mounting order does not matter.
 */
import express, { type ErrorRequestHandler, type RequestHandler } from "express";
import { sendProblem } from "../shared/problem.js";

export function jsonBody(limit: number | string): RequestHandler {
  const parse = express.json({ limit, strict: true });
  return (req, res, next) => {
    // No route reads a GET's body: the parser would only look for one, on every read.
    if (req.method === "GET" || req.method === "HEAD") return next();
    const alreadyParsed = (req as { _body?: boolean })._body === true || req.readableEnded;
    if (alreadyParsed) return next();
    parse(req, res, next);
  };
}

/** Turns body-parser failures into problem+json instead of Express's HTML error page. */
export const bodyParseErrors: ErrorRequestHandler = (err, _req, res, next) => {
  const type = (err as { type?: string } | undefined)?.type;
  switch (type) {
    case "entity.parse.failed":
      return sendProblem(res, { status: 400, code: "malformed_json", title: "Malformed JSON", detail: "The request body is not valid JSON.", errors: [{ path: "(body)", message: "is not valid JSON" }] });
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
