/**
 * A ConfigurationError's fix tells the integrator what to call: every factory it names
 * must be one the package exports (main entry or `./emulator`). Two fixes once named
 * internals (`createRateBudget`, `inProcessFleet()`): advice nobody could follow.
 *
 * Each public factory gets every option it knows set to a wrong value (a symbol, which no
 * option accepts), so each option's problem, and its fix, is produced as the integrator
 * would see it.
 */
import { describe, expect, it } from "vitest";
import * as main from "../../src/index.js";
import * as emulator from "../../src/emulator/index.js";
import { ConfigurationError, createPlatformClient, memoryStore, oralAssessments, postgresStore, redisFleet, sqliteStore } from "../../src/index.js";
import { startEmulator } from "../../src/emulator/index.js";
import { platformClientSchema } from "../../src/platform/options.js";
import { redisFleetSchema } from "../../src/fleet/options.js";
import { routerSchema } from "../../src/router/settings.js";
import { launchSchema } from "../../src/router/launch/settings.js";
import { pageSchema } from "../../src/router/shared/page-settings.js";
import { ltiSchema } from "../../src/lti/settings/settings.js";
import { emulatorSchema } from "../../src/emulator/options.js";
import { memoryStoreSchema, postgresStoreSchema, sqliteStoreSchema } from "../../src/store/options.js";

const WRONG = Symbol("wrong");
const allWrong = (names: Iterable<string>) => Object.fromEntries([...names].map((n) => [n, WRONG]));

/** The fixes of the ConfigurationError `make` throws (it must throw one). */
async function fixesOf(make: () => unknown): Promise<string[]> {
  try {
    await make();
  } catch (error) {
    if (error instanceof ConfigurationError) return error.problems.map((p) => p.fix);
    throw error;
  }
  throw new Error("no ConfigurationError");
}

/** A name that reads as a factory to call: `createX`, `…Fleet`, `…Store`, `startEmulator`, `oralAssessments`. */
const FACTORY = /\b(create[A-Z]\w*|[a-z]\w*Fleet|[a-z]\w*Store|start[A-Z]\w*|oralAssessments)\b/g;
const exported = (name: string) => name in main || name in emulator;

const routerOptions = [...Object.keys(routerSchema), ...Object.keys(launchSchema), ...Object.keys(pageSchema),
  "platform", "organization", "organizationCache", "organizationClient", "fleet", "launchLimit", "circuitBreaker",
  "prepare", "roster", "launchRecord", "live", "metrics", "logger"];
const ltiOptions = ["keys", ...Object.keys(ltiSchema), "dynamicRegistration", "loginLimit", "roster", "gradebook"];

const FACTORIES: [string, () => unknown][] = [
  ["createPlatformClient", () => createPlatformClient(allWrong(["apiKey", "baseUrl", "env", ...Object.keys(platformClientSchema)]) as never)],
  ["oralAssessments", () => oralAssessments(allWrong(routerOptions) as never)],
  ["oralAssessments (lti)", () => oralAssessments({ lti: allWrong(ltiOptions) } as never)],
  ["oralAssessments (many organizations)", () => oralAssessments({ organization: WRONG, organizationCache: WRONG } as never)],
  ["redisFleet", () => redisFleet(allWrong(["url", "secret", ...Object.keys(redisFleetSchema)]) as never)],
  ["sqliteStore", () => sqliteStore(allWrong(Object.keys(sqliteStoreSchema)) as never)],
  ["postgresStore", () => postgresStore(allWrong(Object.keys(postgresStoreSchema)) as never)],
  ["memoryStore", () => memoryStore(allWrong(Object.keys(memoryStoreSchema)) as never)],
  ["startEmulator", () => startEmulator(allWrong(Object.keys(emulatorSchema)) as never)],
];

describe("a configuration problem's fix names only factories the package exports", () => {
  it.each(FACTORIES)("%s", async (_, make) => {
    const fixes = await fixesOf(make);
    expect(fixes.length).toBeGreaterThan(0);
    const named = fixes.flatMap((fix) => [...fix.matchAll(FACTORY)].map((m) => ({ name: m[1]!, fix })));
    expect(named.filter(({ name }) => !exported(name))).toEqual([]);
  });

  it("the check itself sees a factory that is not exported", () => {
    // What the fleet's fix said before: inProcessFleet is the router's default, not an export.
    expect([..."Pass redisFleet({ url, secret }) (or inProcessFleet())".matchAll(FACTORY)].map((m) => m[1]).filter((n) => !exported(n!))).toEqual(["inProcessFleet"]);
  });
});
