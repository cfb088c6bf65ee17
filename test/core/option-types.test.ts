/**
 * Each public options type is written once, with its TSDoc, and each schema is checked
 * against it here, at compile time (`npx tsc -p tsconfig.json --noEmit` fails, naming the
 * option): every field a schema reads is a field of the public type, the type allows no
 * value the schema's type refuses, and what the schema gives back is what the type
 * promises. So the two cannot drift apart without a type error.
 */
import { describe, expect, it } from "vitest";
import type { z } from "zod";
import type { PlatformClientOptions } from "../../src/platform/types.js";
import { platformClientSchema } from "../../src/platform/options.js";
import { redisFleetSchema, type RedisFleetOptions } from "../../src/fleet/options.js";
import { launchLimitSchema, type LaunchLimitOptions } from "../../src/fleet/launch-limit-options.js";
import { circuitBreakerSchema, type CircuitBreakerOptions } from "../../src/fleet/breaker-options.js";
import type { LaunchRecordOptions, LiveViewOptions, OralAssessmentsOptions, PrepareOptions } from "../../src/router/shared/options.js";
import { routerSchema } from "../../src/router/settings.js";
import { launchSchema } from "../../src/router/launch/settings.js";
import { pageSchema } from "../../src/router/shared/page-settings.js";
import { prepareSchema } from "../../src/router/prepare/settings.js";
import { launchExportsSchema, launchRecordSchema, liveSchema } from "../../src/router/records/settings.js";
import type { LaunchExportOptions } from "../../src/router/shared/export-options.js";
import { organizationCacheSchema } from "../../src/router/organization/settings.js";
import type { GradebookOptions, LtiDynamicRegistrationOptions, LtiOptions, LtiRosterOptions } from "../../src/lti/options/options.js";
import { gradebookSchema } from "../../src/lti/options/gradebook-options.js";
import { ltiSchema } from "../../src/lti/settings/settings.js";
import { dynamicRegistrationSchema } from "../../src/lti/options/dynamic-registration-settings.js";
import { ltiRosterSchema } from "../../src/lti/options/roster-options.js";
import { loginLimitSchema } from "../../src/lti/options/login-limit.js";
import { memoryStoreSchema, postgresStoreSchema, sqliteStoreSchema } from "../../src/store/options.js";
import type { MemoryStoreOptions } from "../../src/store/memory.js";
import type { PostgresStoreOptions } from "../../src/store/postgres.js";
import type { SqliteStoreOptions } from "../../src/store/sqlite.js";
import { emulatorSchema } from "../../src/emulator/options.js";
import { metricsSchema } from "../../src/router/metrics/settings.js";
import type { MetricsOptions } from "../../src/router/shared/metrics-options.js";
import type { EmulatorOptions } from "../../src/emulator/types.js";

type Shape = Record<string, z.ZodType>;
type Given<T> = Exclude<T, undefined>;

/** Per schema field: `true`, or why it disagrees with the public type (shown in the type error). */
type Disagreements<Public, S extends Shape> = {
  [K in keyof S]: K extends keyof Public
    ? [Given<Public[K]>] extends [z.input<S[K]>]
      ? [Given<z.output<S[K]>>] extends [Given<Public[K]>] ? true : `${K & string}: the schema gives back what the public type does not promise`
      : `${K & string}: the public type allows what the schema's type refuses`
    : `${K & string}: read by the schema, missing from the public type`;
}[keyof S];

/** Compiles only when `Public` and the schema agree field by field. */
function agree<Public, S extends Shape>(schema: S, ..._ok: [Disagreements<Public, S>] extends [true] ? [] : [Exclude<Disagreements<Public, S>, true>]): number {
  return Object.keys(schema).length;
}

type LoginLimit = Given<LtiOptions["loginLimit"]>;

describe("each public options type and its schema agree (checked by the compiler)", () => {
  it("every schema is checked against its public type", () => {
    const checked = [
      agree<PlatformClientOptions, typeof platformClientSchema>(platformClientSchema),
      agree<RedisFleetOptions, typeof redisFleetSchema>(redisFleetSchema),
      agree<LaunchLimitOptions, typeof launchLimitSchema>(launchLimitSchema),
      agree<CircuitBreakerOptions, typeof circuitBreakerSchema>(circuitBreakerSchema),
      agree<OralAssessmentsOptions, typeof routerSchema>(routerSchema),
      agree<OralAssessmentsOptions, typeof launchSchema>(launchSchema),
      agree<OralAssessmentsOptions, typeof pageSchema>(pageSchema),
      agree<PrepareOptions, typeof prepareSchema>(prepareSchema),
      agree<LaunchRecordOptions, typeof launchRecordSchema>(launchRecordSchema),
      agree<LiveViewOptions, typeof liveSchema>(liveSchema),
      agree<LaunchExportOptions, typeof launchExportsSchema>(launchExportsSchema),
      agree<Given<OralAssessmentsOptions["organizationCache"]>, typeof organizationCacheSchema>(organizationCacheSchema),
      agree<LtiOptions, typeof ltiSchema>(ltiSchema),
      agree<LtiDynamicRegistrationOptions, typeof dynamicRegistrationSchema>(dynamicRegistrationSchema),
      agree<LtiRosterOptions, typeof ltiRosterSchema>(ltiRosterSchema),
      agree<GradebookOptions, typeof gradebookSchema>(gradebookSchema),
      agree<LoginLimit, typeof loginLimitSchema>(loginLimitSchema),
      agree<SqliteStoreOptions, typeof sqliteStoreSchema>(sqliteStoreSchema),
      agree<PostgresStoreOptions, typeof postgresStoreSchema>(postgresStoreSchema),
      agree<MemoryStoreOptions, typeof memoryStoreSchema>(memoryStoreSchema),
      agree<EmulatorOptions, typeof emulatorSchema>(emulatorSchema),
      agree<MetricsOptions, typeof metricsSchema>(metricsSchema),
    ];
    expect(checked.every((fields) => fields > 0)).toBe(true);
  });
});
