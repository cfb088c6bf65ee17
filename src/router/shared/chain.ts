/**
 * Several middleware run as one Express layer. Each layer costs the router a path match
 * and a trip through its `next` on every request; the instructor guards and the body
 * parser always run together on the same prefixes, so they need only one.
 * An error passed to a step, or thrown by one, goes to Express's `next` as usual.
 */
import type { RequestHandler } from "express";

export function chain(handlers: readonly RequestHandler[]): RequestHandler {
  return (req, res, next) => {
    let index = 0;
    const step = (error?: unknown): void => {
      if (error !== undefined && error !== null) return next(error);
      const handler = handlers[index++];
      if (!handler) return next();
      try {
        handler(req, res, step);
      } catch (thrown) {
        next(thrown);
      }
    };
    step();
  };
}
