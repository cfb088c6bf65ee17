/**
 * The OpenAPI document against the router's route table: every route documented, nothing
 * documented that does not exist, every $ref resolved, problem+json for the instructor
 * routes' errors and HTML pages for the launch route. (Request bodies against the zod
 * schemas: openapi-bodies.test.ts; the router's real error answers: openapi-problems.test.ts.)
 */
import type { Router } from "express";
import { describe, expect, it } from "vitest";
import { buildOpenApiDocument } from "../src/api/openapi.js";
import { offlineRouter } from "./support/offline-router.js";
import { doc, resolveRef, type Doc, type Json } from "./support/openapi-schema.js";

const METHODS = ["get", "put", "post", "delete", "patch", "head", "options"];

interface Layer {
  route?: { path: string; methods: Record<string, boolean> };
  handle?: { stack?: Layer[]; routes?: string[] };
  slash?: boolean;
  regexp?: { fast_slash?: boolean };
}

/** `METHOD /path` of every route, walking routers mounted at the root of this one. */
function routesOf(router: Router): string[] {
  const out: string[] = [];
  const walk = (stack: Layer[]) => {
    for (const layer of stack) {
      if (layer.route) {
        for (const [method, on] of Object.entries(layer.route.methods)) if (on && method !== "_all") out.push(`${method.toUpperCase()} ${layer.route.path}`);
      } else if (layer.handle?.routes) {
        // A route-table layer (src/router/shared/route-table.ts) lists what it serves.
        out.push(...layer.handle.routes);
      } else if (layer.handle?.stack) {
        if (!(layer.slash || layer.regexp?.fast_slash)) throw new Error("a nested router is mounted under a path: teach routesOf about it");
        walk(layer.handle.stack);
      }
    }
  };
  walk((router as unknown as { stack: Layer[] }).stack);
  return [...new Set(out)].sort();
}

function documentedRoutes(): string[] {
  const out: string[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of Object.keys(item)) {
      if (METHODS.includes(method)) out.push(`${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ":$1")}`);
    }
  }
  return out.sort();
}

const router = offlineRouter();

describe("the OpenAPI document", () => {
  it("is OpenAPI 3.1 with paths relative to the mount point", () => {
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.servers[0]?.url).toBe("/oral");
    expect((buildOpenApiDocument({ serverUrl: "/exams/api" }) as unknown as Doc).servers[0]?.url).toBe("/exams/api");
  });

  it("documents every route of the router, and no route the router does not have", () => {
    const routes = routesOf(router);
    const documented = documentedRoutes();
    expect(routes.length).toBeGreaterThanOrEqual(10);
    for (const route of routes) expect(documented, `${route} is not documented`).toContain(route);
    // The document describes itself; the router serves it at GET /openapi.json once mounted.
    const expected = routes.includes("GET /openapi.json") ? documented : documented.filter((r) => r !== "GET /openapi.json");
    for (const route of expected) expect(routes, `${route} is documented but not routed`).toContain(route);
  });

  it("resolves every $ref", () => {
    const refs: string[] = [];
    const collect = (node: unknown) => {
      if (Array.isArray(node)) node.forEach(collect);
      else if (node && typeof node === "object") {
        for (const [k, v] of Object.entries(node)) if (k === "$ref" && typeof v === "string") refs.push(v); else collect(v);
      }
    };
    collect(doc);
    expect(refs.length).toBeGreaterThan(20);
    for (const ref of new Set(refs)) expect(() => resolveRef(ref), ref).not.toThrow();
  });

  it("answers instructor errors with problem+json and the launch route with HTML pages", () => {
    const problem = doc.components.schemas.Problem!;
    expect(problem.required).toEqual(["type", "title", "status", "detail", "code"]);
    const errors = (problem.properties as Record<string, Json>).errors!;
    expect((errors.items as Json).required).toEqual(["path", "message"]);

    for (const [path, item] of Object.entries(doc.paths)) {
      if (path.startsWith("/launch/") || path === "/openapi.json") continue;
      for (const [method, op] of Object.entries(item)) {
        const responses = op.responses as Record<string, Json>;
        for (const status of ["401", "403"]) expect(responses[status], `${method} ${path} ${status}`).toBeDefined();
        for (const [status, response] of Object.entries(responses)) {
          if (Number(status) < 400) continue;
          const resolved = typeof response.$ref === "string" ? resolveRef(response.$ref) : response;
          expect(Object.keys(resolved.content as Json), `${method} ${path} ${status}`).toEqual(["application/problem+json"]);
        }
      }
    }

    const launch = doc.paths["/launch/{examId}"]!.get!.responses as Record<string, Json>;
    expect(launch["303"]).toBeDefined();
    for (const status of ["202", "401", "403", "404", "409", "429", "502", "504"]) {
      expect(Object.keys(launch[status]!.content as Json), `launch ${status}`).toEqual(["text/html"]);
    }
    // A prefetch's 503 is a short plain text; every other 503 is a page.
    expect(Object.keys(launch["503"]!.content as Json)).toEqual(["text/html", "text/plain"]);
  });
});
