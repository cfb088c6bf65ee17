/**
 * `GET /openapi.json`: public, it describes routes and shapes, nothing about this
 * deployment's data.
 *
 * The document is built and serialised once per router. Only `servers[0].url` depends
 * on the request (where the router is mounted, `req.baseUrl`), and Express matches the
 * mount path case-insensitively, so any number of spellings reach this handler: caching
 * per spelling let an anonymous caller grow the heap without bound. The one serialised
 * document is split around its server URL, and each answer splices the request's mount
 * path in: nothing is kept per request.
 */
import type { RequestHandler } from "express";
import { buildOpenApiDocument } from "../../api/openapi.js";

/** A marker no mount path can contain (JSON-escaped control characters). */
const SERVER_URL_MARK = "\u0000server-url\u0000";

/** The serialised document, in the two parts around its server URL. */
export interface OpenApiText {
  before: string;
  after: string;
}

export function serialisedOpenApi(): OpenApiText {
  const text = JSON.stringify(buildOpenApiDocument({ serverUrl: SERVER_URL_MARK }));
  const mark = JSON.stringify(SERVER_URL_MARK);
  const at = text.indexOf(mark);
  return { before: text.slice(0, at), after: text.slice(at + mark.length) };
}

export function openApiRoute(): RequestHandler {
  let text: OpenApiText | undefined;
  return (req, res) => {
    text ??= serialisedOpenApi();
    res.setHeader("Content-Type", "application/json; charset=utf-8");
    res.end(text.before + JSON.stringify(req.baseUrl || "/") + text.after);
  };
}
