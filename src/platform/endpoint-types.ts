/**
 * The client's resource methods, as types derived from the endpoint table
 * (`endpoints.ts`), the way `resources.ts` derives their code from it: every entry is
 * `client[resource][action]`, taking its path ids in order (one `string` each), then its
 * body (required) or list filter (optional), then the call's options, and resolving to
 * its answer's record (or list of records; `undefined` for an endpoint with no answer,
 * a DELETE). So a new endpoint is an entry in the table and nothing here.
 */
import type { z } from "zod";
import type { ENDPOINTS } from "./endpoints.js";
import type { RequestOptions, WithMeta } from "./request-options.js";

type Spec = (typeof ENDPOINTS)[keyof typeof ENDPOINTS];

/** One `string` per `{id}` in a path: `/courses/{courseId}/classes/{classId}` → `[id: string, id: string]`. */
type PathIds<P extends string> = P extends `${string}{${string}}${infer Rest}` ? [id: string, ...PathIds<Rest>] : [];

/** The body an endpoint sends (as the caller may write it: defaults optional), or the filter a list takes. */
type InputArgs<S> =
  S extends { body: z.ZodType } ? [body: z.input<S["body"]>]
  : S extends { query: z.ZodType | undefined } ? FilterArgs<NonNullable<S["query"]>>
  : [];
/** A table entry's `query` may be `undefined` (a list without a filter): then no argument. */
type FilterArgs<Q> = [Q] extends [never] ? [] : Q extends z.ZodType ? [filter?: z.input<Q>] : [];

/** The record the answer is read as (or a list of them); nothing for an endpoint with no answer. */
type AnswerOf<S> =
  S extends { answer: z.ZodType } ? (S extends { list: true } ? z.output<S["answer"]>[] : z.output<S["answer"]>) : undefined;

/** The client method of one endpoint. */
export type EndpointMethod<S extends Spec> =
  (...args: [...PathIds<S["path"]>, ...InputArgs<S>, opts?: RequestOptions]) => Promise<WithMeta<AnswerOf<S>>>;

/** `{ courses: { create, list, … }, classes: { … }, … }`: one method per endpoint of the table. */
export type PlatformResources = {
  [R in Spec["resource"]]: { [S in Extract<Spec, { resource: R }> as S["action"]]: EndpointMethod<S> };
};
