/**
 * The client's resource methods, built from the endpoint table (`endpoints.ts`): every
 * entry becomes `client[resource][action]`, taking its path ids in order, then its body
 * (or list filter), then the call's options.
 *
 * A method checks the ids and the body together with the endpoint's schemas *before*
 * anything is sent (every issue at once, in a `PlatformInvalidRequestError`), sends the
 * normalised body (defaults filled, dates in UTC with milliseconds, unknown fields
 * untouched), and reads the answer, enveloped or bare, as the endpoint's record (or list
 * of records). Auth, budget, retries and errors are the call pipeline's (`call.ts`).
 */
import { z } from "zod";
import { ENDPOINTS, pathParams, type EndpointSpec } from "./endpoints.js";
import { PlatformInvalidRequestError } from "./errors.js";
import { idIssues, type Issue } from "./paths.js";
import type { HttpMethod } from "./retry.js";
import { issuesOf } from "./schemas.js";
import type { RequestOptions, WithMeta } from "./types.js";

/** What the resource methods need from the client: the call, read as a record or not at all. */
export interface ResourceKit {
  /** Sends, then reads the answer as `schema`. */
  record<T extends z.ZodType>(schema: T, what: string, method: HttpMethod, path: string, body: unknown, opts: RequestOptions | undefined): Promise<WithMeta<z.output<T>>>;
  /** Sends a call whose answer carries nothing the client reads (a DELETE). */
  remove(path: string, opts: RequestOptions | undefined): Promise<WithMeta<undefined>>;
  /** Told when a call is refused locally, before anything is sent. */
  refused(method: string, what: string, issues: Issue[]): void;
}

type Method = (...args: unknown[]) => Promise<WithMeta<unknown>>;

/** `{ courses: { create, list, … }, classes: { … }, … }`, one method per endpoint. */
export function buildResources(kit: ResourceKit): Record<string, Record<string, Method>> {
  const resources: Record<string, Record<string, Method>> = {};
  for (const spec of Object.values(ENDPOINTS) as EndpointSpec[]) {
    (resources[spec.resource] ??= {})[spec.action] = endpointMethod(kit, spec);
  }
  return resources;
}

/**
 * Checks ids and the body (or filter) together, so one error lists every problem; returns
 * the path with each id encoded as one segment (an id like `../x` cannot address another
 * endpoint) and the normalised body.
 */
function checkedRequest(kit: Pick<ResourceKit, "refused">, spec: EndpointSpec, ids: unknown[], input: unknown): { path: string; body: unknown } {
  const names = pathParams(spec);
  const issues: Issue[] = names.flatMap((name, i) => idIssues(name, ids[i]));
  const schema = spec.body ?? spec.query;
  let parsed: unknown;
  if (schema) {
    // A list filter may be left out; a body may not.
    const result = schema.safeParse(spec.query && input === undefined ? {} : input);
    if (result.success) parsed = result.data;
    else issues.push(...issuesOf(result.error));
  }
  if (issues.length > 0) {
    const what = spec.body ? spec.what.replace(/^an? /, "") : spec.query ? `${spec.what} filter` : `${spec.what.replace(/^an? /, "")} id`;
    kit.refused(spec.method, what, issues);
    throw new PlatformInvalidRequestError(`Invalid ${what}: ${issues.map((i) => `${i.path} ${i.message}`).join("; ")}. Nothing was sent.`, issues);
  }
  let i = 0;
  const path = spec.path.replace(/\{\w+\}/g, () => encodeURIComponent(ids[i++] as string));
  if (spec.query) return { path: path + queryString(parsed as Record<string, unknown>), body: undefined };
  return { path, body: parsed };
}

function endpointMethod(kit: ResourceKit, spec: EndpointSpec): Method {
  const idCount = pathParams(spec).length;
  const takesInput = spec.body !== undefined || spec.query !== undefined;
  const answer = spec.answer && (spec.list ? z.array(spec.answer) : spec.answer);
  return async (...args) => {
    const input = takesInput ? args[idCount] : undefined;
    const given = args[idCount + (takesInput ? 1 : 0)] as RequestOptions | undefined;
    const opts = spec.priority && given?.priority === undefined ? { ...given, priority: spec.priority } : given;
    const { path, body } = checkedRequest(kit, spec, args.slice(0, idCount), input);
    if (!answer) return kit.remove(path, opts);
    return kit.record(answer, spec.what, spec.method, path, body, opts);
  };
}

/** `?classId=…` from a parsed filter: its defined fields, encoded. */
function queryString(filter: Record<string, unknown>): string {
  const pairs = Object.entries(filter).filter(([, v]) => v !== undefined).map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`);
  return pairs.length === 0 ? "" : `?${pairs.join("&")}`;
}
