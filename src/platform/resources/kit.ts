/**
 * What every resource module gets from the client: `checked` (ids and body validated
 * together, every problem in one `PlatformInvalidRequestError`, nothing sent), `record`
 * (send, then read the answer as a record schema) and `remove` (a DELETE whose answer
 * carries nothing we need). `client.ts` builds it once and composes the resources.
 */
import { z } from "zod";
import type { HttpMethod } from "../retry.js";
import { ListFilter } from "../schemas.js";
import { pathOf } from "../paths.js";
import type { RequestOptions, WithMeta } from "../types.js";

export interface ResourceKit {
  checked<S extends z.ZodType | undefined>(
    what: string, method: string, ids: Record<string, unknown>, schema: S, body?: unknown,
  ): S extends z.ZodType ? z.output<S> : undefined;
  record<T extends z.ZodType>(
    schema: T, what: string, method: HttpMethod, path: string, body: unknown, opts: RequestOptions | undefined,
  ): Promise<WithMeta<z.output<T>>>;
  remove(path: string, opts: RequestOptions | undefined): Promise<WithMeta<undefined>>;
}

/**
 * `?classId=…` for the two lists the platform filters, or nothing. The filter is checked
 * like an id (unknown filter names are refused: the platform documents no others).
 */
export function classFilterQuery(kit: ResourceKit, what: string, filter: unknown): string {
  const { classId } = kit.checked(what, "GET", {}, ListFilter, filter ?? {});
  return classId === undefined ? "" : `?classId=${encodeURIComponent(classId)}`;
}

/** A path under a collection, with the id checked and encoded as one segment. */
export const itemPath = (collection: string, id: string): string => `${collection}${pathOf`/${id}`}`;
