/**
 * A feature's routes from the one route table (`api/routes.ts`) served by a single
 * Express layer: the request's method and path are looked up in patterns compiled once,
 * and the handler is called directly. An Express sub-router with one route per entry
 * costs a path match and a `next` trip per route it passes, plus its own entry and exit
 * (prefix trimming and restoring), on every request.
 *
 * Matching follows Express's defaults: case-insensitive, an optional trailing slash, a
 * parameter is one non-empty path segment, percent-decoded, and a GET route answers
 * HEAD. A malformed escape (`%E0%A4%A`) is a 400 problem naming the parameter (Express
 * would pass a URIError on, which the router could only answer as a 500). Anything not in the table goes to the next middleware.
 */
import type { Request, RequestHandler, Response } from "express";
import { expressPath, type RouteSpec } from "../../api/routes.js";
import { invalidInput, sendProblem } from "./problem.js";

export type TableHandler = (req: Request, res: Response) => Promise<void>;

/**
 * The layer, and what it serves as `"METHOD /express/:path"` strings: what an Express
 * route would show in the router's stack, for tools (and tests) listing the routes.
 */
export type RouteTableHandler = RequestHandler & { readonly routes: readonly string[] };

interface CompiledRoute {
  method: string;
  pattern: RegExp;
  params: string[];
  handler: TableHandler;
}

export function routeTable(routes: readonly RouteSpec[], handlers: Readonly<Record<string, TableHandler>>): RouteTableHandler {
  const compiled: CompiledRoute[] = routes.map((route) => {
    const handler = handlers[route.operationId];
    if (!handler) throw new Error(`No handler for ${route.operationId}.`);
    const params: string[] = [];
    const source = route.path.split("/").map((segment) => {
      const param = /^\{(\w+)\}$/.exec(segment);
      if (!param) return segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
      params.push(param[1]!);
      return "([^/]+)";
    }).join("/");
    return { method: route.method.toUpperCase(), pattern: new RegExp(`^${source}/?$`, "i"), params, handler };
  });

  const dispatch: RequestHandler = (req, res, next) => {
    const method = req.method === "HEAD" ? "GET" : req.method;
    const path = req.path;
    for (const route of compiled) {
      if (route.method !== method) continue;
      const match = route.pattern.exec(path);
      if (!match) continue;
      const params: Record<string, string> = {};
      for (const [i, name] of route.params.entries()) {
        const value = decoded(match[i + 1]!);
        if (value === undefined) {
          sendProblem(res, invalidInput([{ path: name, message: "is not a valid percent-encoded path segment" }]));
          return;
        }
        params[name] = value;
      }
      req.params = params;
      route.handler(req, res).catch(next);
      return;
    }
    next();
  };
  return Object.assign(dispatch, { routes: routes.map((r) => `${r.method.toUpperCase()} ${expressPath(r.path)}`) });
}

function decoded(segment: string): string | undefined {
  if (!segment.includes("%")) return segment;
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}
