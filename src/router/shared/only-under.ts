/**
 * Gating a sub-router by path prefix without mounting it at that path.
 */
import type { RequestHandler } from "express";

/**
 * Hands a request to `handler` only when its path starts with `prefix`, compared as the
 * router compares paths (case-insensitively); others go on at once. Unlike mounting at
 * a path, nothing of the URL is stripped, so the handler's routes keep their full paths.
 */
export function onlyUnder(prefix: string, handler: RequestHandler): RequestHandler {
  const lower = prefix.toLowerCase();
  const gated: RequestHandler = (req, res, next) => {
    if (req.url.slice(0, lower.length).toLowerCase() === lower) handler(req, res, next);
    else next();
  };
  // A router's layers stay visible, as they were when it was mounted directly: tools
  // listing the router's routes (and the OpenAPI test) walk `stack`.
  return Object.assign(gated, { stack: (handler as { stack?: unknown }).stack });
}
