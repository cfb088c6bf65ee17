/**
 * The OpenAPI document as the tests read it, and a small validator for the JSON Schema
 * subset it uses. The validator knows exactly the keywords the document uses and throws on
 * any other, so the document cannot start relying on a keyword that nothing here checks.
 */
import { buildOpenApiDocument } from "../../src/api/openapi.js";

export type Json = Record<string, unknown>;
export type Doc = {
  openapi: string;
  servers: { url: string }[];
  paths: Record<string, Record<string, Json>>;
  components: { schemas: Record<string, Json>; responses: Record<string, Json>; parameters: Record<string, Json> };
};

export const doc = buildOpenApiDocument() as unknown as Doc;

const KEYWORDS = new Set([
  "$ref", "type", "properties", "required", "additionalProperties", "enum", "const", "minLength", "maxLength",
  "pattern", "format", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "minItems", "maxItems",
  "items", "anyOf", "allOf", "minProperties", "default", "examples", "description", "title",
]);

export function resolveRef(ref: string): Json {
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
export function validate(schema: Json, value: unknown, at = "$"): string[] {
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
