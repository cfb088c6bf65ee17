/**
 * The OpenAPI document against the two things it describes: the router's route table
 * (every route documented, nothing documented that does not exist) and the zod schemas
 * (a body valid by the document is accepted by the router's schema, and the two agree on
 * every body generated from the document).
 *
 * Bodies are checked against the document with a small JSON Schema validator below. It
 * knows exactly the keywords the document uses and throws on any other, so the document
 * cannot start relying on a keyword that nothing here checks.
 */
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import express, { type Router } from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { z } from "zod";
import { createPlatformClient } from "../src/platform/client.js";
import {
  ClassCreate, ClassUpdate, CourseCreate, CourseUpdate, OralAssessmentCreate, OralAssessmentUpdate, RoleplayCreate, RoleplayUpdate,
} from "../src/platform/schemas.js";
import { oralAssessments } from "../src/router/index.js";
import { buildOpenApiDocument } from "../src/api/openapi.js";
import { PrepareRequest } from "../src/api/prepare-request.js";
import { ScoresRequest } from "../src/api/scores-request.js";
import { memoryStore } from "../src/store/memory.js";
import { TEST_KEY } from "./support/keys.js";

type Json = Record<string, unknown>;
type Doc = {
  openapi: string;
  servers: { url: string }[];
  paths: Record<string, Record<string, Json>>;
  components: { schemas: Record<string, Json>; responses: Record<string, Json>; parameters: Record<string, Json> };
};

const doc = buildOpenApiDocument() as unknown as Doc;
const METHODS = ["get", "put", "post", "delete", "patch", "head", "options"];

/** The zod schema behind each request body of the document. */
const ZOD_FOR: Record<string, z.ZodType> = {
  CourseCreate, CourseUpdate, ClassCreate, ClassUpdate, OralAssessmentCreate, OralAssessmentUpdate, RoleplayCreate, RoleplayUpdate, PrepareRequest, ScoresRequest,
};

/**
 * Rules between fields that JSON Schema cannot state, which the document therefore states
 * in the schema's description (checked below): a body breaking one is left out of the
 * "valid by the document ⇒ accepted by zod" comparison.
 */
const DATES_IN_ORDER = {
  described: /`endDate` must not be before `startDate`/,
  broken: (body: Json) => Date.parse(String(body.endDate)) < Date.parse(String(body.startDate)),
};
const CROSS_FIELD_RULES: Record<string, { described: RegExp; broken: (body: Json) => boolean }> = {
  ClassCreate: DATES_IN_ORDER,
  ClassUpdate: DATES_IN_ORDER,
  ScoresRequest: {
    described: /`scoreGiven` must not exceed `scoreMaximum`; `gradingProgress: FullyGraded` needs a `scoreGiven`/,
    broken: (body: Json) => Array.isArray(body.scores) && (body.scores as Json[]).some((s) => (typeof s.scoreGiven === "number" && typeof s.scoreMaximum === "number" && s.scoreGiven > s.scoreMaximum)
      || (s.gradingProgress === "FullyGraded" && s.scoreGiven === undefined)),
  },
};

// ---------------------------------------------------------------------------------------
// A validator for the JSON Schema subset the document uses
// ---------------------------------------------------------------------------------------

const KEYWORDS = new Set([
  "$ref", "type", "properties", "required", "additionalProperties", "enum", "const", "minLength", "maxLength",
  "pattern", "format", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "minItems", "maxItems",
  "items", "anyOf", "allOf", "minProperties", "default", "examples", "description", "title",
]);

function resolveRef(ref: string): Json {
  const parts = ref.replace(/^#\//, "").split("/");
  let node: unknown = doc;
  for (const p of parts) node = (node as Json)?.[p];
  if (!node || typeof node !== "object") throw new Error(`unresolvable $ref ${ref}`);
  return node as Json;
}

function validDate(value: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!m) return false;
  const d = new Date(Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!));
  return d.getUTCFullYear() === +m[1]! && d.getUTCMonth() === +m[2]! - 1 && d.getUTCDate() === +m[3]!;
}

const FORMATS: Record<string, (v: string) => boolean> = {
  date: validDate,
  // RFC 3339 date-time: seconds required, a zone required.
  "date-time": (v) => {
    const m = /^(\d{4}-\d{2}-\d{2})[Tt]([01]\d|2[0-3]):[0-5]\d:[0-5]\d(\.\d+)?([Zz]|[+-]([01]\d|2[0-3]):[0-5]\d)$/.exec(v);
    return m !== null && validDate(m[1]!);
  },
  "uri-reference": () => true,
  // Only the shape; the schema's `pattern` carries zod's exact rule.
  email: (v) => /^[^\s@]+@[^\s@]+$/.test(v),
};

function typeOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

/** Error messages; empty when `value` is valid by `schema`. */
function validate(schema: Json, value: unknown, at = "$"): string[] {
  for (const key of Object.keys(schema)) if (!KEYWORDS.has(key)) throw new Error(`validator does not know the keyword "${key}" (at ${at})`);
  if (typeof schema.$ref === "string") return validate(resolveRef(schema.$ref), value, at);
  const errors: string[] = [];
  const t = typeOf(value);
  if (schema.type !== undefined) {
    const ok = schema.type === t || (schema.type === "number" && t === "integer");
    if (!ok) return [`${at}: expected ${String(schema.type)}, got ${t}`];
  }
  if (Array.isArray(schema.enum) && !schema.enum.includes(value)) errors.push(`${at}: not one of ${JSON.stringify(schema.enum)}`);
  if ("const" in schema && schema.const !== value) errors.push(`${at}: not ${JSON.stringify(schema.const)}`);
  if (typeof value === "string") {
    const length = [...value].length;
    if (typeof schema.minLength === "number" && length < schema.minLength) errors.push(`${at}: shorter than ${schema.minLength}`);
    if (typeof schema.maxLength === "number" && length > schema.maxLength) errors.push(`${at}: longer than ${schema.maxLength}`);
    if (typeof schema.pattern === "string" && !new RegExp(schema.pattern, "u").test(value)) errors.push(`${at}: does not match ${schema.pattern}`);
    if (typeof schema.format === "string") {
      const check = FORMATS[schema.format];
      if (!check) throw new Error(`validator does not know the format "${schema.format}"`);
      if (!check(value)) errors.push(`${at}: not a ${schema.format}`);
    }
  }
  if (typeof value === "number") {
    if (typeof schema.minimum === "number" && value < schema.minimum) errors.push(`${at}: < ${schema.minimum}`);
    if (typeof schema.maximum === "number" && value > schema.maximum) errors.push(`${at}: > ${schema.maximum}`);
    if (typeof schema.exclusiveMinimum === "number" && value <= schema.exclusiveMinimum) errors.push(`${at}: <= ${schema.exclusiveMinimum}`);
    if (typeof schema.exclusiveMaximum === "number" && value >= schema.exclusiveMaximum) errors.push(`${at}: >= ${schema.exclusiveMaximum}`);
  }
  if (Array.isArray(value)) {
    if (typeof schema.minItems === "number" && value.length < schema.minItems) errors.push(`${at}: fewer than ${schema.minItems} items`);
    if (typeof schema.maxItems === "number" && value.length > schema.maxItems) errors.push(`${at}: more than ${schema.maxItems} items`);
    if (schema.items && typeof schema.items === "object") value.forEach((item, i) => errors.push(...validate(schema.items as Json, item, `${at}[${i}]`)));
  }
  if (t === "object") {
    const obj = value as Json;
    const props = (schema.properties ?? {}) as Record<string, Json>;
    for (const name of (schema.required ?? []) as string[]) if (!(name in obj)) errors.push(`${at}.${name}: required`);
    if (typeof schema.minProperties === "number" && Object.keys(obj).length < schema.minProperties) errors.push(`${at}: fewer than ${schema.minProperties} properties`);
    for (const [name, v] of Object.entries(obj)) {
      if (props[name]) errors.push(...validate(props[name], v, `${at}.${name}`));
      else if (schema.additionalProperties === false) errors.push(`${at}.${name}: not allowed`);
      else if (schema.additionalProperties && typeof schema.additionalProperties === "object") errors.push(...validate(schema.additionalProperties as Json, v, `${at}.${name}`));
    }
  }
  if (Array.isArray(schema.allOf)) for (const s of schema.allOf as Json[]) errors.push(...validate(s, value, at));
  if (Array.isArray(schema.anyOf) && !(schema.anyOf as Json[]).some((s) => validate(s, value, at).length === 0)) {
    errors.push(`${at}: matches none of anyOf`);
  }
  return errors;
}

// ---------------------------------------------------------------------------------------
// Bodies generated from the document
// ---------------------------------------------------------------------------------------

/** A few values for a schema: boundaries, every enum value, every format; whitespace where a pattern forbids it. */
function valuesFor(schema: Json): unknown[] {
  if (typeof schema.$ref === "string") return valuesFor(resolveRef(schema.$ref));
  if (Array.isArray(schema.anyOf) && schema.type === undefined) return (schema.anyOf as Json[]).flatMap(valuesFor);
  if (Array.isArray(schema.enum)) return [...schema.enum];
  switch (schema.type) {
    case "string": {
      if (schema.format === "date") return ["2026-09-01", "2027-02-28"];
      if (schema.format === "date-time") return ["2026-09-01T09:00:00.000Z", "2026-09-01T09:00:00+02:00", "2026-09-01t09:00:00z"];
      if (schema.format === "email") return ["ada@school.example", "no-at-sign", "two@@signs.example"];
      const min = Math.max(1, (schema.minLength as number | undefined) ?? 1);
      const out: unknown[] = ["q".repeat(min), "Écrire ✓ 漢字"];
      if (typeof schema.maxLength === "number") out.push("m".repeat(schema.maxLength), "m".repeat(schema.maxLength + 1));
      if (schema.pattern !== undefined) out.push("   ");
      return out;
    }
    case "integer":
    case "number": {
      const lo = typeof schema.exclusiveMinimum === "number" ? schema.exclusiveMinimum + 1 : (schema.minimum as number | undefined) ?? 0;
      const out: unknown[] = [lo, lo - 1, 600];
      if (typeof schema.maximum === "number") out.push(schema.maximum, schema.maximum + 1);
      if (schema.type === "integer") out.push(lo + 0.5);
      return out;
    }
    case "array": {
      const items = valuesFor(schema.items as Json);
      return [[], [items[0]], items.slice(0, 3)];
    }
    case "object":
      return objectsFor(schema);
    case "boolean":
      return [true, false];
    default:
      return [];
  }
}

function objectsFor(schema: Json): Json[] {
  const props = (schema.properties ?? {}) as Record<string, Json>;
  const required = new Set((schema.required ?? []) as string[]);
  const first = (name: string) => valuesFor(props[name]!)[0];
  const base: Json = {};
  for (const name of required) base[name] = first(name);
  const full: Json = { ...base };
  for (const name of Object.keys(props)) full[name] = first(name);
  const out: Json[] = [base, full, { ...full, examDescription: "kept as is", isDraft: true }];
  for (const name of Object.keys(props)) {
    for (const v of valuesFor(props[name]!)) {
      out.push({ ...base, [name]: v }, { ...full, [name]: v });
    }
    if (!required.has(name)) {
      const without = { ...full };
      delete without[name];
      out.push(without);
    }
  }
  for (const example of (schema.examples ?? []) as Json[]) out.push(example);
  return out;
}

// ---------------------------------------------------------------------------------------
// The router's route table
// ---------------------------------------------------------------------------------------

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

const platform = createPlatformClient({ apiKey: TEST_KEY, baseUrl: "http://127.0.0.1:9" });
const router = oralAssessments({ canLaunch: "any-signed-in-user", platform, store: memoryStore(), isInstructor: () => true });

afterAll(async () => {
  await router.close();
  platform.close();
});

// ---------------------------------------------------------------------------------------

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

  it("uses only request-body schemas that have a zod schema behind them", () => {
    const used = new Set<string>();
    for (const item of Object.values(doc.paths)) {
      for (const op of Object.values(item)) {
        const ref = ((op.requestBody as Json | undefined)?.content as Record<string, Json> | undefined)?.["application/json"]?.schema as Json | undefined;
        if (ref) used.add(String(ref.$ref).split("/").pop()!);
      }
    }
    expect([...used].sort()).toEqual(Object.keys(ZOD_FOR).sort());
  });

  describe.each(Object.keys(ZOD_FOR))("request body %s", (name) => {
    const schema = doc.components.schemas[name]!;
    const zod = ZOD_FOR[name]!;

    it("its examples are valid by the document and accepted by zod", () => {
      const examples = (schema.examples ?? []) as Json[];
      expect(examples.length).toBeGreaterThan(0);
      for (const example of examples) {
        expect(validate(schema, example)).toEqual([]);
        expect(zod.safeParse(example).success).toBe(true);
      }
    });

    it("a body valid by the document is accepted by zod, and the two agree on every generated body", () => {
      const rule = CROSS_FIELD_RULES[name];
      if (rule) expect(String(schema.description)).toMatch(rule.described);
      const bodies = objectsFor(schema).filter((body) => !rule?.broken(body));
      let valid = 0;
      for (const body of bodies) {
        const docErrors = validate(schema, body);
        const parsed = zod.safeParse(body);
        if (docErrors.length === 0) {
          valid += 1;
          expect(parsed.success, `doc-valid body refused by zod: ${JSON.stringify(body)}: ${parsed.error?.message}`).toBe(true);
        } else {
          expect(parsed.success, `zod accepts a body the document refuses (${docErrors.join("; ")}): ${JSON.stringify(body)}`).toBe(false);
        }
      }
      expect(valid).toBeGreaterThan(3);
      expect(bodies.length - valid).toBeGreaterThan(0);
    });

    it("lets unknown fields through, as the platform's loose objects do", () => {
      const example = { ...((schema.examples as Json[])[0]!), examDescription: "kept" };
      expect(validate(schema, example)).toEqual([]);
      expect((zod.parse(example) as Json).examDescription).toBe("kept");
    });
  });

  it("accepts, like zod, an assessment without questions (the platform generates one), refuses an empty list and an empty course update", () => {
    const assessment = doc.components.schemas.OralAssessmentCreate!;
    for (const body of [{ name: "x", classId: "c" }, { name: "x", classId: "c", examType: "Personalized" }]) {
      expect(validate(assessment, body)).toEqual([]);
      expect(OralAssessmentCreate.safeParse(body).success).toBe(true);
    }
    const empty = { name: "x", classId: "c", examType: "Generic", questions: [] };
    expect(validate(assessment, empty)).not.toEqual([]);
    expect(OralAssessmentCreate.safeParse(empty).success).toBe(false);
    expect(validate(doc.components.schemas.CourseUpdate!, {})).not.toEqual([]);
    expect(CourseUpdate.safeParse({}).success).toBe(false);
  });
});

describe("the document against the router's real answers", () => {
  let server: Server;
  let base: string;

  beforeAll(async () => {
    const app = express();
    app.use((req, _res, next) => {
      (req as unknown as { user: unknown }).user = { id: "u1", role: "instructor" };
      next();
    });
    app.use("/oral", router);
    server = app.listen(0, "127.0.0.1");
    await new Promise((resolve) => server.once("listening", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/oral`;
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  it("a 400 from the router is valid by the Problem schema and names the fields", async () => {
    const res = await fetch(`${base}/oral-assessments`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ name: " ", duration: 1.5 }),
    });
    expect(res.status).toBe(400);
    expect(res.headers.get("content-type")).toMatch(/^application\/problem\+json/);
    const body = await res.json();
    expect(validate(doc.components.schemas.Problem!, body)).toEqual([]);
    expect((body as { errors: { path: string }[] }).errors.map((e) => e.path)).toEqual(expect.arrayContaining(["name", "classId", "duration"]));
  });

  it("a 415 for a non-JSON body is valid by the Problem schema and documented", async () => {
    const res = await fetch(`${base}/courses`, { method: "POST", headers: { "Content-Type": "text/plain" }, body: "name=x" });
    expect(res.status).toBe(415);
    expect(validate(doc.components.schemas.Problem!, await res.json())).toEqual([]);
    expect(doc.paths["/courses"]!.post!.responses).toHaveProperty("415");
  });

  it("a list the platform cannot give is a documented 502 problem", async () => {
    // The client points at a closed port: the list comes from the platform, so this is an upstream failure.
    const res = await fetch(`${base}/courses/c1/classes`);
    expect(res.status).toBe(502);
    expect(validate(doc.components.schemas.Problem!, await res.json())).toEqual([]);
    expect(doc.paths["/courses/{courseId}/classes"]!.get!.responses).toHaveProperty("502");
  });
});
