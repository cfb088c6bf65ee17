/**
 * The OpenAPI 3.1 document of the router's routes, generated from the shared zod schemas
 * (the single source of truth), so the document cannot drift from what the router
 * validates. Pure: no Express, no I/O; the router serves the result as `GET /openapi.json`.
 * The paths come from the route table (`routes.ts`) the router binds its handlers to, so a
 * route cannot be served without being documented, or documented without being served;
 * each route's statuses and headers come from `answers.ts`, its schemas from the platform
 * endpoint behind it (`platform/endpoints.ts`), named as in the `schemas` namespace.
 */
import type { z } from "zod";
import { ENDPOINTS, type EndpointSpec } from "../platform/endpoints.js";
import { answersOf, isIdempotent, takesBody, type AnswerContent, type AnswerSpec } from "./answers.js";
import { buildComponents, schemaName, type JsonSchema, type RouteSchemas } from "./openapi-components.js";
import { ROUTES, type RouteSpec } from "./routes.js";

export interface OpenApiDocumentOptions {
  /**
   * Where the router is mounted, as the `servers[0].url` the paths are relative to.
   * Default `"/oral"` (the mount point the README uses).
   */
  serverUrl?: string;
  /** `info.version`. Default: this package's version line, `0.1.0`. */
  version?: string;
}



const ref = (name: string) => ({ $ref: `#/components/${name}` });

const CONTENT_TYPES: Record<Exclude<AnswerContent, "none">, string[]> = {
  json: ["application/json"], problem: ["application/problem+json"], html: ["text/html"],
};

/** The schema names of what a route sends and gets back: its own, or its platform endpoint's. */
function schemasOf(route: RouteSpec): { body?: string; record?: string } {
  const endpoint: EndpointSpec | undefined = route.upstream === undefined ? undefined : ENDPOINTS[route.upstream];
  const ownsBody = route.feature === "instructor" && endpoint?.body !== undefined;
  const record = route.returns && route.returns.kind !== "none" ? route.returns.schema ?? (endpoint?.answer ? schemaName(endpoint.answer) : undefined) : undefined;
  return { body: route.body ?? (ownsBody ? schemaName(endpoint!.body!) : undefined), record };
}

function contentOf(route: RouteSpec, answer: AnswerSpec): JsonSchema | undefined {
  if (answer.content === "none") return undefined;
  let schema: JsonSchema;
  if (answer.content === "problem") schema = ref("schemas/Problem");
  else if (answer.content === "html") schema = { type: "string" };
  else if (route.feature === "meta") schema = { type: "object" };
  else {
    const record = ref(`schemas/${schemasOf(route).record}`);
    const data = route.returns?.kind === "list" ? { type: "array", items: record } : record;
    schema = { type: "object", required: ["data"], properties: { data, meta: ref("schemas/Meta") } };
  }
  const types = [...CONTENT_TYPES[answer.content], ...(answer.plainTextToo ? ["text/plain"] : [])];
  const content: JsonSchema = Object.fromEntries(types.map((type) => [type, { schema }]));
  if (answer.csvToo) content["text/csv"] = { schema: { type: "string", description: "One header row, then one row per record (RFC 4180)." } };
  if (answer.eventsToo) content["text/event-stream"] = { schema: { type: "string", description: "Server-Sent Events: `event: snapshot`, `data:` the record as JSON." } };
  return content;
}

function responseOf(route: RouteSpec, answer: AnswerSpec): JsonSchema {
  const headers = Object.fromEntries(Object.entries(answer.headers).map(([name, h]) => [name, {
    description: h.description,
    required: h.required,
    schema: h.value !== undefined ? { type: "string", const: h.value } : name === "Retry-After" ? { type: "integer", minimum: 1 } : { type: "string" },
  }]));
  const content = contentOf(route, answer);
  return { description: answer.description, ...(Object.keys(headers).length > 0 ? { headers } : {}), ...(content ? { content } : {}) };
}

function operationOf(route: RouteSpec): JsonSchema {
  const responses: Record<string, JsonSchema> = {};
  for (const answer of answersOf(route)) responses[String(answer.status)] = responseOf(route, answer);
  const parameters = [...(route.params ?? []).map((p) => ref(`parameters/${p}`)), ...(isIdempotent(route) ? [ref("parameters/IdempotencyKey")] : [])];
  const { body } = schemasOf(route);
  return {
    operationId: route.operationId,
    summary: route.summary,
    ...(route.description ? { description: route.description } : {}),
    tags: [route.tag],
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(body && takesBody(route) ? { requestBody: { required: true, content: { "application/json": { schema: ref(`schemas/${body}`) } } } } : {}),
    responses,
    // The document itself is public; everything else needs the host app's session.
    security: route.feature === "meta" ? [] : [{ session: [] }],
  };
}

/** The `paths` object: one operation per route of the table, in table order. */
function buildPaths(): JsonSchema {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const route of ROUTES) (paths[route.path] ??= {})[route.method] = operationOf(route);
  return paths;
}

/** The platform schemas the routes use, named as in the `schemas` namespace. */
function routeSchemas(): RouteSchemas {
  const requests = new Map<string, z.ZodType>();
  const records = new Map<string, z.ZodType>();
  for (const route of ROUTES as readonly RouteSpec[]) {
    if (route.upstream === undefined || route.feature !== "instructor") continue;
    const endpoint: EndpointSpec = ENDPOINTS[route.upstream];
    if (endpoint.body) requests.set(schemaName(endpoint.body), endpoint.body);
    if (endpoint.answer) records.set(schemaName(endpoint.answer), endpoint.answer);
  }
  return { requests, records };
}

/** The OpenAPI 3.1 document of the router mounted at `serverUrl`. A fresh object per call. */
export function buildOpenApiDocument(options: OpenApiDocumentOptions = {}): Record<string, unknown> {
  return {
    openapi: "3.1.0",
    jsonSchemaDialect: "https://json-schema.org/draft/2020-12/schema",
    info: {
      title: "express-oral-assessments",
      version: options.version ?? "0.1.0",
      description:
        "The instructor API (JSON in, JSON or RFC 9457 problem+json out) and the student launch route of the " +
        "`oralAssessments()` Express router. Every path is relative to where the router is mounted. " +
        "State-changing calls must be `application/json` and same-origin (or from `trustedOrigins`).",
    },
    servers: [{ url: options.serverUrl ?? "/oral", description: "Where the host application mounted the router." }],
    tags: [
      { name: "courses" }, { name: "classes" }, { name: "oral assessments" }, { name: "roleplays" }, { name: "launch" }, { name: "meta" },
    ],
    paths: buildPaths(),
    components: buildComponents(routeSchemas()),
  };
}
