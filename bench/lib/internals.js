/**
 * The internals the breakdown and overhead benchmarks time on their own (the transport,
 * the HTTP adapter, the record schemas), which the package does not export: bundled from
 * src/ by esbuild into bench/.internals/ (dependencies external, as the package build
 * does), then imported. The package itself is read from dist/ as an app would.
 */
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import * as esbuild from "esbuild";

const root = join(import.meta.dirname, "..", "..");
const outfile = join(root, "bench", ".internals", "internals.js");

await esbuild.build({
  stdin: {
    contents: [
      'export { createNodeHttpAdapter } from "./src/platform/http-adapter.ts";',
      'export { Course, CourseCreate, SignInToken, SignInTokenRequest } from "./src/platform/schemas.ts";',
      'export { createTransport } from "./src/platform/transport.ts";',
    ].join("\n"),
    resolveDir: root,
    loader: "ts",
  },
  bundle: true, format: "esm", platform: "node", target: "node20.19", packages: "external", outfile, logLevel: "error",
});

export const { createNodeHttpAdapter, Course, CourseCreate, SignInToken, SignInTokenRequest, createTransport } = await import(pathToFileURL(outfile).href);
