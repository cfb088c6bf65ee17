/**
 * The OpenAPI 3.1 document of the router's routes, generated from the shared zod schemas
 * (the single source of truth), so the document cannot drift from what the router
 * validates. Pure: no Express, no I/O; the router serves the result as `GET /openapi.json`.
 * The schemas themselves are in `openapi-components.ts`; the paths come from the route
 * table (`routes.ts`) the router binds its handlers to, so a route cannot be served
 * without being documented, or documented without being served.
 */
import { buildComponents, problem, type JsonSchema } from "./openapi-components.js";
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

/** The shared problem+json response of each error status (see `openapi-components.ts`). */
const ERROR_RESPONSES: Record<number, string> = {
  400: "Invalid", 401: "Unauthenticated", 403: "Forbidden", 404: "NotFound", 409: "Conflict", 413: "TooLarge",
  415: "UnsupportedMediaType", 500: "InternalError", 502: "BadGateway", 503: "ServiceUnavailable", 504: "GatewayTimeout",
};

const htmlPage = (description: string, headers?: JsonSchema): JsonSchema => ({
  description,
  ...(headers ? { headers } : {}),
  content: { "text/html": { schema: { type: "string" } } },
});

/** The launch route's redirect: not a JSON answer, so described by hand. */
const LAUNCH_REDIRECT: JsonSchema = {
  description:
    "To `{examHost}/exam/{examId}?{ticketParam}={token}` (custom domain) or `{platform host}/exam/{examId}` " +
    "(for a role-play `/exam/{roleplayId}/roleplay`); " +
    "or, signed out with `loginUrl` set, to `{loginUrl}?returnTo={this path}`.",
  headers: {
    Location: { schema: { type: "string", format: "uri-reference" } },
    "Cache-Control": { schema: { type: "string", const: "no-store" } },
    "Referrer-Policy": { schema: { type: "string", const: "no-referrer" } },
  },
};

const OPENAPI_DOCUMENT: JsonSchema = {
  description: "The OpenAPI 3.1 document.", content: { "application/json": { schema: { type: "object" } } },
};

function successResponse(route: RouteSpec): JsonSchema {
  if (route.feature === "launch") return LAUNCH_REDIRECT;
  if (route.feature === "meta") return OPENAPI_DOCUMENT;
  const returns = route.returns;
  if (!returns || returns.kind === "none") return { description: returns?.description ?? "Done." };
  const record = ref(`schemas/${returns.schema}`);
  const data = returns.kind === "list" ? { type: "array", items: record } : record;
  return {
    description: returns.description,
    content: { "application/json": { schema: { type: "object", required: ["data"], properties: { data, meta: ref("schemas/Meta") } } } },
  };
}

function errorResponse(route: RouteSpec, status: number): JsonSchema {
  const described = route.errorDescriptions?.[status];
  if (route.feature === "launch") {
    const retryAfter = status === 503 ? { "Retry-After": { schema: { type: "integer", minimum: 1 } } } : undefined;
    return htmlPage(described ?? "An error page.", retryAfter);
  }
  if (described !== undefined) return problem(described);
  return ref(`responses/${ERROR_RESPONSES[status] ?? "InternalError"}`);
}

function operationOf(route: RouteSpec): JsonSchema {
  const responses: Record<string, JsonSchema> = { [String(route.status)]: successResponse(route) };
  for (const status of route.errors) responses[String(status)] = errorResponse(route, status);
  return {
    operationId: route.operationId,
    summary: route.summary,
    ...(route.description ? { description: route.description } : {}),
    tags: [route.tag],
    ...(route.params ? { parameters: route.params.map((p) => ref(`parameters/${p}`)) } : {}),
    ...(route.body ? { requestBody: { required: true, content: { "application/json": { schema: ref(`schemas/${route.body}`) } } } } : {}),
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
    components: buildComponents(),
  };
}
