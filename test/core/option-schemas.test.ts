/**
 * The option schemas are the one source of each option's default: the TSDoc of every
 * public options type and docs/router.md's option table must say what the schema does.
 * A default changed in one place and not the other fails here, naming the option.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { platformClientSchema } from "../../src/platform/options.js";
import { redisFleetSchema } from "../../src/fleet/options.js";
import { launchLimitSchema } from "../../src/fleet/launch-limit-options.js";
import { circuitBreakerSchema } from "../../src/fleet/breaker-options.js";
import { routerSchema } from "../../src/router/settings.js";
import { launchSchema } from "../../src/router/launch/settings.js";
import { pageSchema } from "../../src/router/shared/page-settings.js";
import { prepareSchema } from "../../src/router/prepare/settings.js";
import { launchExportsSchema, launchRecordSchema, liveSchema } from "../../src/router/records/settings.js";
import { ltiSchema } from "../../src/lti/settings/settings.js";
import { dynamicRegistrationSchema } from "../../src/lti/options/dynamic-registration-settings.js";
import { ltiRosterSchema } from "../../src/lti/options/roster-options.js";
import { gradebookSchema } from "../../src/lti/options/gradebook-options.js";
import { memoryStoreSchema, postgresStoreSchema, sqliteStoreSchema } from "../../src/store/options.js";

type Shape = Record<string, z.ZodType>;
const read = (file: string) => readFileSync(new URL(`../../${file}`, import.meta.url), "utf8");

/** Each field's default as the docs write it (`5000`, `"eoa"`, `false`), for fields that have one. */
function defaultsOf(shape: Shape): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, schema] of Object.entries(shape)) {
    if (!(schema instanceof z.ZodDefault)) continue;
    const value: unknown = schema.def.defaultValue;
    if (typeof value === "number" || typeof value === "string" || typeof value === "boolean") out[name] = JSON.stringify(value);
  }
  return out;
}

/** `name → "Default …" text` from an interface's TSDoc, numbers without their thousands spaces. */
function tsdocDefaults(source: string, interfaceName: string): Record<string, string> {
  const start = source.indexOf(`export interface ${interfaceName} `);
  expect(start, interfaceName).toBeGreaterThanOrEqual(0);
  const body = source.slice(start, source.indexOf("\n}\n", start));
  const out: Record<string, string> = {};
  for (const [, doc, name] of body.matchAll(/\/\*\*((?:(?!\*\/)[\s\S])*)\*\/\s*(\w+)\??:/g)) {
    const text = doc!.replace(/\s*\n\s*\*\s*/g, " ");
    const found = /Default:? `?("[^"]*"|-?[\d ]*\d(?:\.\d+)?|true|false)`?/.exec(text);
    if (found) out[name!] = found[1]!.replace(/(\d) (?=\d)/g, "$1");
  }
  return out;
}

const TSDOC: [string, string, Shape][] = [
  ["src/platform/types.ts", "PlatformClientOptions", platformClientSchema],
  ["src/fleet/options.ts", "RedisFleetOptions", redisFleetSchema],
  ["src/fleet/launch-limiter.ts", "LaunchLimitSettings", launchLimitSchema],
  ["src/fleet/circuit-breaker.ts", "CircuitBreakerSettings", circuitBreakerSchema],
  ["src/router/shared/options.ts", "OralAssessmentsOptions", { ...routerSchema, ...launchSchema, ...pageSchema }],
  ["src/router/shared/options.ts", "PrepareOptions", prepareSchema],
  ["src/router/shared/options.ts", "LaunchRecordOptions", launchRecordSchema],
  ["src/router/shared/options.ts", "LiveViewOptions", liveSchema],
  ["src/router/shared/export-options.ts", "LaunchExportOptions", launchExportsSchema],
  ["src/lti/options/options.ts", "LtiOptions", ltiSchema],
  ["src/lti/options/options.ts", "LtiDynamicRegistrationOptions", dynamicRegistrationSchema],
  ["src/lti/options/roster-options.ts", "LtiRosterOptions", ltiRosterSchema],
  ["src/lti/options/options.ts", "GradebookOptions", gradebookSchema],
  ["src/store/sqlite.ts", "SqliteStoreOptions", sqliteStoreSchema],
  ["src/store/postgres.ts", "PostgresStoreOptions", postgresStoreSchema],
  ["src/store/memory.ts", "MemoryStoreOptions", memoryStoreSchema],
];

/** Defaults the docs write in the integrator's form rather than the parsed one. */
const WRITTEN_AS: Record<string, string> = { bodyLimit: '"100kb"' };

describe("option schemas are the source of the documented defaults", () => {
  it.each(TSDOC)("%s: %s's TSDoc states each schema default", (file, name, shape) => {
    const documented = tsdocDefaults(read(file), name);
    for (const [option, value] of Object.entries(defaultsOf(shape))) {
      expect(documented[option], `${name}.${option}: TSDoc "Default …" vs the schema's ${value}`).toBe(WRITTEN_AS[option] ?? value);
    }
  });

  it("docs/router.md's option table states each schema default", () => {
    const rows = new Map<string, string>();
    for (const [, option, cell] of read("docs/router.md").matchAll(/^\| `([\w.]+)[^`]*` \| ([^|]*) \|/gm)) rows.set(option!, cell!.replace(/`/g, "").trim());
    const flat: [string, Shape][] = [["", { ...routerSchema, ...launchSchema, ...pageSchema }], ["prepare.", prepareSchema]];
    for (const [prefix, shape] of flat) {
      for (const [option, value] of Object.entries(defaultsOf(shape))) {
        expect(rows.get(prefix + option)?.split(" ")[0], `${prefix}${option}`).toBe(WRITTEN_AS[option] ?? value);
      }
    }
    const nested: [string, Shape][] = [["launchLimit", launchLimitSchema], ["circuitBreaker", circuitBreakerSchema], ["launchRecord", launchRecordSchema], ["live", liveSchema], ["launchExports", launchExportsSchema]];
    for (const [option, shape] of nested) {
      const cell = rows.get(option) ?? "";
      const written = Object.fromEntries([...cell.matchAll(/(\w+): ([\d.]+)/g)].map(([, k, v]) => [k!, v!]));
      expect(written, option).toEqual(defaultsOf(shape));
    }
  });
});
