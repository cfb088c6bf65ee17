/**
 * The shape of one entry of the router's route table (`routes.ts`): what a route says about
 * itself, from which the router binds it and the OpenAPI document describes it.
 */
import type { EndpointId } from "../platform/endpoints.js";

export type RouteMethod = "get" | "post" | "put" | "delete";
export type RouteParam = "courseId" | "classId" | "examId" | "roleplayId";

/** Which feature serves the route; each feature binds only its own. */
export type RouteFeature = "instructor" | "prepare" | "gradebook" | "launch" | "meta";

export interface RouteSpec {
  operationId: string;
  method: RouteMethod;
  path: string;
  feature: RouteFeature;
  summary: string;
  description?: string;
  tag: string;
  params?: readonly RouteParam[];
  /** The platform call behind the route: its body and answer schemas are the route's. */
  upstream?: EndpointId;
  /** Component schema name of a body the platform does not define (`PrepareRequest`). */
  body?: string;
  /** The success status. */
  status: number;
  /**
   * What the success carries: `{ data: <record> }` (`record`), `{ data: <record>[] }` (`list`), or nothing. `schema`: when there is no `upstream`.
   * `csv`: with `Accept: text/csv` the success is CSV instead; `events`: with
   * `Accept: text/event-stream`, the same record as Server-Sent Events.
   */
  returns?: { kind: "record" | "list"; schema?: string; description: string; csv?: boolean; events?: boolean } | { kind: "none"; description: string };
  /** The platform can answer 404 (a record it does not know). */
  notFound?: boolean;
  /** The platform can answer 409 (a conflict). */
  conflict?: boolean;
  /** The router can answer 429 with `Retry-After` (a cap of its own, described in `descriptions`). */
  capped?: boolean;
  /** Route-specific meaning of a status, where the generic one would mislead. */
  descriptions?: Partial<Record<number, string>>;
}
