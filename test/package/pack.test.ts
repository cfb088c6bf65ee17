/**
 * The published artefact: `npm pack` (at most 400 kB), installed into an empty folder. One
 * CommonJS bundle that `require()` loads and `import` reaches through ES module entry points
 * (one copy, one class per error); both entry points work both ways; one rolled-up set of
 * types (their TSDoc: build-output.test.ts) that a CommonJS TypeScript project (module
 * node16) type-checks against, compiles and runs, as do consumers without `skipLibCheck`
 * and the optional peers (`pg`, `ioredis`), and with the latest `@types/node` and
 * `@types/express` (both with TypeScript 7); are-the-types-wrong finds no problem; no source
 * maps (the docs it packs: docs-links.test.ts); it installs without `better-sqlite3` (an
 * optional peer): the default store says how to add it, and `memoryStore()` serves the
 * router. docs/development.md, "The build", says why.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runTool, runToolAsync } from "../support/tool-run.js";

const root = join(import.meta.dirname, "..", "..");
const bin = (name: string) => join(root, "node_modules", ".bin", name);
const dir = mkdtempSync(join(tmpdir(), "eoa-pack-"));
let tarball = "";
/** What `npm pack --json` reported: bytes packed and unpacked, and the number of files. */
let packed = { size: 0, unpackedSize: 0, entryCount: 0 };

const node = (args: string[], cwd = dir): string => execFileSync(process.execPath, args, { cwd, encoding: "utf8", timeout: 60_000 });
const run = (file: string, args: string[], cwd = dir) => runTool(file, args, cwd);
const runAsync = (file: string, args: string[], cwd = dir, timeout = 120_000) => runToolAsync(file, args, cwd, timeout);

/** The consumer of the latest @types and TypeScript 7 (its test below); installed while the first consumer installs. */
const latestTypes = join(dir, "ts-latest-types");
let latestTypesInstalled: Promise<unknown> = Promise.resolve();

/**
 * The consumer type-checks without skipLibCheck run TypeScript 7, the native compiler that
 * `npm i typescript` gives a new project (installed in the latest-@types consumer): it reads
 * our declarations as TypeScript 6 does (the same errors for a missing optional peer or a
 * broken type, tried on 2026-11-26) in about a sixth of the CPU (1.4–1.8 s against 6–10 s a
 * project on 2 cores). The CommonJS project that compiles and runs (its test below) uses the
 * repository's TypeScript 6.0, so both majors read the shipped declarations.
 */
const tsc7 = (project: string) => runAsync(join(latestTypes, "node_modules", "typescript", "bin", "tsc"), ["-p", "."], project);

beforeAll(async () => {
  // dist/ was built by global-setup; --ignore-scripts keeps pack from building again.
  const report = execFileSync("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", dir], { cwd: root, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  packed = (JSON.parse(report) as (typeof packed)[])[0] ?? packed;
  tarball = readdirSync(dir).find((f) => f.endsWith(".tgz")) ?? "";
  if (!tarball) throw new Error("npm pack produced no tarball");
  // No "type" field: the consumer folder is CommonJS, like most Express backends.
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "consumer", private: true }));
  // An npm install here is mostly waiting (about 30 s, 9 s of it CPU): the latest-@types
  // consumer installs at the same time, and its test awaits it (so a failure there fails that
  // test alone). Its rejection is kept, not left unhandled, until the test reads it.
  mkdirSync(latestTypes, { recursive: true });
  writeFileSync(join(latestTypes, "package.json"), JSON.stringify({ name: "ts-latest-types", private: true }));
  const latest = runAsync("npm", ["install", "--ignore-scripts", "--prefer-offline", "--no-audit", "--no-fund",
    join(dir, tarball), "express@5", "@types/node@latest", "@types/express@latest", "typescript@7"], latestTypes, 240_000);
  latestTypesInstalled = latest.then(() => undefined, (error: unknown) => error);
  // No --ignore-scripts: nothing the package depends on compiles at install (better-sqlite3
  // is an optional peer, left out). The @types are what a TypeScript Express backend already has.
  await runAsync("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund", `./${tarball}`, "express@5", "@types/node@20", "@types/express@5"], dir, 240_000);
}, 300_000);
afterAll(async () => {
  await latestTypesInstalled; // an npm still writing there when beforeAll failed
  rmSync(dir, { recursive: true, force: true });
});

const USE = `
  const { createPlatformClient, oralAssessments, ConfigurationError } = pkg;
  const { startEmulator } = emu;
  const emulator = await startEmulator({ port: 0 });
  const platform = createPlatformClient({ apiKey: emulator.testKey, baseUrl: emulator.url });
  const course = await platform.courses.create({ name: "Packed" });
  const ok = typeof oralAssessments === "function" && typeof ConfigurationError === "function";
  console.log(JSON.stringify({ name: course.data.name, level: course.data.level, ok }));
  platform.close(); await emulator.close();
`;

const lastLine = (out: string) => JSON.parse(out.trim().split("\n").pop() ?? "") as unknown;

describe("the npm pack tarball", () => {
  it("loads with import, and its emulator subpath works", () => {
    writeFileSync(join(dir, "esm.mjs"), `import * as pkg from "express-oral-assessments"; import * as emu from "express-oral-assessments/emulator";\n${USE}`);
    expect(JSON.parse(node(["esm.mjs"]).trim())).toEqual({ name: "Packed", level: "undergraduate", ok: true });
  });

  it("loads with require(), and its emulator subpath works", () => {
    writeFileSync(join(dir, "cjs.cjs"), `const pkg = require("express-oral-assessments"); const emu = require("express-oral-assessments/emulator");\n(async () => {${USE}})();`);
    expect(lastLine(node(["cjs.cjs"]))).toEqual({ name: "Packed", level: "undergraduate", ok: true });
  });

  it("is at most 400 kB packed (npm pack --json), in a few dozen files", () => {
    // 811 kB, 1,342 files before the bundled build (two tsc builds, each with its declarations).
    expect(packed.size).toBeGreaterThan(0);
    expect(packed.size).toBeLessThanOrEqual(400_000);
    expect(packed.entryCount).toBeLessThan(60);
  });

  it("gives require() the CommonJS code and import the ES module entry points over that same code: one copy, one class", () => {
    // A namespace object from import has the "Module" tag; a CommonJS exports object has none.
    writeFileSync(join(dir, "which.mjs"), `
      import { createRequire } from "node:module";
      import * as esm from "express-oral-assessments";
      import * as esmEmu from "express-oral-assessments/emulator";
      const require = createRequire(import.meta.url);
      const cjs = require("express-oral-assessments");
      const cjsEmu = require("express-oral-assessments/emulator");
      const rel = (p) => p.slice(p.indexOf("express-oral-assessments/") + "express-oral-assessments/".length);
      let thrown;
      try { cjs.createPlatformClient({}); } catch (error) { thrown = error; }
      console.log(JSON.stringify({
        requirePaths: [require.resolve("express-oral-assessments"), require.resolve("express-oral-assessments/emulator")].map(rel),
        importPaths: [import.meta.resolve("express-oral-assessments"), import.meta.resolve("express-oral-assessments/emulator")].map(rel),
        requireTags: [cjs[Symbol.toStringTag] ?? null, cjsEmu[Symbol.toStringTag] ?? null],
        importTags: [esm[Symbol.toStringTag], esmEmu[Symbol.toStringTag]],
        sameNames: [Object.keys(esm).join() === Object.keys(cjs).sort().join(), Object.keys(esmEmu).join() === Object.keys(cjsEmu).sort().join()],
        sameClass: cjs.ConfigurationError === esm.ConfigurationError && cjsEmu.startEmulator === esmEmu.startEmulator,
        error: { name: thrown?.name, code: thrown?.code, cjsInstance: thrown instanceof cjs.ConfigurationError, esmInstance: thrown instanceof esm.ConfigurationError },
      }));
    `);
    expect(lastLine(node(["which.mjs"]))).toEqual({
      requirePaths: ["dist/index.cjs", "dist/emulator/index.cjs"],
      importPaths: ["dist/index.js", "dist/emulator/index.js"],
      requireTags: [null, null],
      importTags: ["Module", "Module"],
      sameNames: [true, true],
      // No dual-package hazard: an error thrown through one is an instance of the other's class.
      sameClass: true,
      error: { name: "ConfigurationError", code: "configuration_error", cjsInstance: true, esmInstance: true },
    });
  });

  it("type-checks, compiles and runs in a CommonJS TypeScript project (module node16)", () => {
    const project = join(dir, "ts-cjs");
    mkdirSync(project, { recursive: true });
    writeFileSync(join(project, "tsconfig.json"), JSON.stringify({
      compilerOptions: {
        module: "node16", moduleResolution: "node16", target: "es2022", strict: true,
        // skipLibCheck as `tsc --init` sets it; the test below checks without it.
        esModuleInterop: true, skipLibCheck: true, types: ["node"], outDir: "out", rootDir: ".",
      },
      include: ["app.ts"],
    }));
    writeFileSync(join(project, "app.ts"), `
      import { createPlatformClient, ConfigurationError, type OralAssessmentsOptions } from "express-oral-assessments";
      import emulatorModule = require("express-oral-assessments/emulator");
      import express = require("express");

      // Never called: only the compiler looks at it.
      export function typesAreReal(): void {
        // @ts-expect-error apiKey must be a string: proves real declarations were found, not \`any\`.
        createPlatformClient({ apiKey: 42 });
      }
      const options: Partial<OralAssessmentsOptions> = {};

      async function main(): Promise<void> {
        const emulator = await emulatorModule.startEmulator({ port: 0 });
        const platform = createPlatformClient({ apiKey: emulator.testKey, baseUrl: emulator.url });
        const course = await platform.courses.create({ name: "From CommonJS TypeScript" });
        const name: string = course.data.name;
        platform.close();
        await emulator.close();
        console.log(JSON.stringify({ name, app: typeof express(), options: typeof options, errorClass: ConfigurationError.name }));
      }
      void main();
    `);
    run(process.execPath, [join(root, "node_modules", "typescript", "bin", "tsc"), "-p", "."], project);
    // The emitted file uses require(): it is CommonJS, as node16 decides for a "type"-less package.
    expect(node(["-e", "process.stdout.write(require('fs').readFileSync('out/app.js', 'utf8'))"], project)).toMatch(/require\("express-oral-assessments"\)/);
    expect(lastLine(node([join("out", "app.js")], project))).toEqual({
      name: "From CommonJS TypeScript", app: "function", options: "object", errorClass: "ConfigurationError",
    });
  }, 120_000); // a tsc run: 31 s on 2 cores at load 24

  it("says in its ConfigurationError that metrics need prom-client when it is not installed (import and require)", () => {
    expect(existsSync(join(dir, "node_modules", "prom-client"))).toBe(false);
    const attempt = `
      const platform = pkg.createPlatformClient({ apiKey: "svc_test_" + "x".repeat(32), baseUrl: "http://127.0.0.1:9" });
      const registry = { registerMetric() {}, getSingleMetric() {}, metrics: async () => "" };
      let answer = "no error";
      try { pkg.oralAssessments({ platform, canLaunch: "any-signed-in-user", metrics: { registry } }); } catch (e) { answer = e.name + ": " + e.problems.map((p) => p.option + " " + p.message).join(); }
      platform.close();
      console.log(JSON.stringify(answer));
    `;
    writeFileSync(join(dir, "metrics.mjs"), `import * as pkg from "express-oral-assessments";\n${attempt}`);
    writeFileSync(join(dir, "metrics.cjs"), `const pkg = require("express-oral-assessments");\n${attempt}`);
    for (const file of ["metrics.mjs", "metrics.cjs"]) {
      expect(lastLine(node([file]))).toBe("ConfigurationError: metrics needs the `prom-client` package, which is not installed.");
    }
  });

  it("type-checks without skipLibCheck when the optional peers pg, ioredis and prom-client are not installed (CommonJS and ESM)", async () => {
    // The consumer installed only the tarball, express and @types: npm leaves optional peers out.
    for (const absent of ["pg", "@types/pg", "ioredis", "prom-client"]) expect(existsSync(join(dir, "node_modules", absent)), absent).toBe(false);
    const app = `
      import { createPlatformClient, oralAssessments, postgresStore, memoryStore, type OralAssessmentsOptions, type PostgresStoreOptions } from "express-oral-assessments";
      import { startEmulator } from "express-oral-assessments/emulator";
      // A pool shaped like pg's, without pg: what the store's declarations promise to need.
      const pool: PostgresStoreOptions["pool"] = {
        query: async () => ({ rows: [], rowCount: 0 }),
        connect: async () => ({ query: async () => ({ rows: [], rowCount: 0 }), release: () => undefined }),
        end: async () => undefined,
      };
      // A registry shaped like prom-client's, without prom-client.
      const metrics: OralAssessmentsOptions["metrics"] = { registry: { registerMetric: () => undefined, getSingleMetric: () => undefined, metrics: async () => "" } };
      export const used = [createPlatformClient, oralAssessments, postgresStore, memoryStore, startEmulator, pool, metrics];
    `;
    const projects = [
      { name: "ts-cjs-strict", type: undefined, module: "node16" },
      { name: "ts-esm-strict", type: "module", module: "nodenext" },
    ];
    // TypeScript 7 comes with the latest-@types consumer.
    const installError = await latestTypesInstalled;
    if (installError) throw installError;
    // One after the other, so as not to take the core of the file running next to this one.
    for (const { name, type, module } of projects) {
      const project = join(dir, name);
      mkdirSync(project, { recursive: true });
      if (type) writeFileSync(join(project, "package.json"), JSON.stringify({ name, private: true, type }));
      writeFileSync(join(project, "tsconfig.json"), JSON.stringify({
        compilerOptions: { module, moduleResolution: module, target: "es2022", strict: true, skipLibCheck: false, types: ["node"], noEmit: true },
        include: ["app.ts"],
      }));
      writeFileSync(join(project, "app.ts"), app);
      // Fails with TS2307 "Cannot find module 'pg'" when a shipped .d.ts imports an optional peer.
      await tsc7(project);
    }
  }, 180_000);

  it("type-checks without skipLibCheck against the latest @types/node and @types/express, with TypeScript 7 (an LTI key given as a JWK, the LMS emulator)", async () => {
    // @types/node 26 dropped node:crypto's JsonWebKey: a shipped .d.ts importing it fails with TS2305.
    const project = latestTypes;
    const installError = await latestTypesInstalled;
    if (installError) throw installError;
    writeFileSync(join(project, "tsconfig.json"), JSON.stringify({
      compilerOptions: { module: "node16", moduleResolution: "node16", target: "es2022", strict: true, skipLibCheck: false, types: ["node"], noEmit: true },
      include: ["app.ts"],
    }));
    writeFileSync(join(project, "app.ts"), `
      import { generateKeyPairSync } from "node:crypto";
      import express from "express";
      import { oralAssessments, memoryStore, type LtiOptions } from "express-oral-assessments";
      import { createLmsEmulator } from "express-oral-assessments/emulator";
      const jwk = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ format: "jwk" });
      const lti: LtiOptions = { keys: [{ kid: "tool-1", privateKey: jwk }], registrations: [] };
      const app = express();
      app.use("/oral", oralAssessments({ organization: () => undefined, store: memoryStore(), canLaunch: "any-signed-in-user", lti }));
      export const used = [createLmsEmulator, app];
    `);
    expect(await runAsync(process.execPath, [join(project, "node_modules", "typescript", "bin", "tsc"), "-v"], project)).toMatch(/^Version 7\./);
    await tsc7(project);
  }, 300_000);

  it("links the express-oral-assessments command for an app that installed it (what npx runs there)", () => {
    const out = run(join(dir, "node_modules", ".bin", "express-oral-assessments"), ["--help"]);
    expect(out).toContain("Usage: express-oral-assessments emulator");
  });

  it("has no problem are-the-types-wrong can find (every resolution mode)", () => {
    // Default ("strict") profile: node10, node16 from CJS and ESM, bundler. Exits non-zero on any problem.
    expect(run(bin("attw"), [join(dir, tarball), "--format", "ascii"], root)).toMatch(/No problems found/);
  }, 120_000); // 43 s on 2 cores at load 24

  it("ships the types of both entry points for import (.d.ts) and require() (.d.cts), and no source nor source maps", () => {
    const pkgDir = join(dir, "node_modules", "express-oral-assessments");
    for (const file of ["index.d.ts", "index.d.cts", "emulator/index.d.ts", "emulator/index.d.cts"]) {
      expect(existsSync(join(pkgDir, "dist", file)), file).toBe(true);
    }
    expect(existsSync(join(pkgDir, "src"))).toBe(false);
    const shipped = readdirSync(join(pkgDir, "dist"), { recursive: true, encoding: "utf8" });
    expect([shipped.some((file) => file.endsWith(".cjs")), shipped.filter((file) => file.endsWith(".map"))]).toEqual([true, []]);
  });

  it("installs without better-sqlite3: the default store says how to install it, and memoryStore() serves the router (import and require)", async () => {
    expect(existsSync(join(dir, "node_modules", "better-sqlite3"))).toBe(false);
    const attempt = `
      const out = {};
      try { await pkg.sqliteStore({ filename: "never.sqlite" }).listCourses("org"); out.sqlite = "opened"; } catch (e) { out.sqlite = e.name + ": " + e.problems.map((p) => p.option + " " + p.message + " Fix: " + p.fix).join(); }
      out.file = fs.existsSync("never.sqlite");
      const emulator = await emu.startEmulator({ port: 0 });
      const platform = pkg.createPlatformClient({ apiKey: emulator.testKey, baseUrl: emulator.url });
      const app = express().use((req, _res, next) => { req.user = { id: "u1", email: "i@example.edu", firstName: "I", lastName: "N" }; next(); });
      app.use("/oral", pkg.oralAssessments({ platform, store: pkg.memoryStore(), isInstructor: () => true, canLaunch: "any-signed-in-user" }));
      const server = app.listen(0, "127.0.0.1"); await new Promise((resolve) => server.once("listening", resolve));
      const base = "http://127.0.0.1:" + server.address().port + "/oral/courses";
      const created = await fetch(base, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ name: "Memory" }) });
      out.router = [created.status, (await (await fetch(base)).text()).includes("Memory")];
      server.close(); platform.close(); await emulator.close(); console.log(JSON.stringify(out));
    `;
    writeFileSync(join(dir, "nosqlite.mjs"), `import * as pkg from "express-oral-assessments"; import * as emu from "express-oral-assessments/emulator"; import express from "express"; import fs from "node:fs";\n${attempt}`);
    writeFileSync(join(dir, "nosqlite.cjs"), `const pkg = require("express-oral-assessments"); const emu = require("express-oral-assessments/emulator"); const express = require("express"); const fs = require("node:fs");\n(async () => {${attempt}})();`);
    for (const file of ["nosqlite.mjs", "nosqlite.cjs"]) {
      const out = lastLine(node([file])) as { sqlite: string; file: boolean; router: [number, boolean] };
      expect(out.sqlite, file).toMatch(/^ConfigurationError: better-sqlite3 is not installed: the default store, sqliteStore\(\), needs it.* Fix: Run `npm install better-sqlite3`, or .*memoryStore\(\)/);
      expect([out.file, out.router], file).toEqual([false, [201, true]]);
    }
  });
});
