/**
 * `npm run mutations [-- --only PREFIX] [--list]`: the project's mutation sweep, re-runnable.
 *
 * Each mutation in `list.js` is one small change to one check (delete it, flip it, make it
 * always pass), with the test files that must catch it. For each: the source file is
 * changed in place, those files run (`vitest run --project express5 --retry 0 --bail 1`,
 * dist/ left as it is: the mutated checks are read from src/ by the tests named), and the
 * file is put back from memory, whatever happens (also on Ctrl-C). A mutation whose text
 * is not found exactly once is reported `stale` (the code moved: update the list), never
 * as caught. A file with uncommitted changes is refused, so nothing of yours is lost.
 *
 * Prints one line per mutation (caught / SURVIVED / equivalent / stale, seconds) and a summary; the
 * exit code is 1 when any mutation survived or went stale. docs/lab/mutations.md records
 * the last sweep and the survivors left on purpose.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { MUTATIONS } from "./list.js";

const ROOT = join(import.meta.dirname, "../..");
const { values } = parseArgs({ options: { only: { type: "string" }, list: { type: "boolean" } } });
const chosen = MUTATIONS.filter((m) => !values.only || m.id.startsWith(values.only));
if (values.list) {
  for (const m of chosen) console.log(`${m.id}\t${m.file}\t${m.tests.join(" ")}`);
  process.exit(0);
}

const ids = new Set();
for (const m of MUTATIONS) {
  if (ids.has(m.id)) throw new Error(`two mutations are named ${m.id}`);
  ids.add(m.id);
}

let restore;
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => { restore?.(); process.exit(130); });

const dirty = (file) => execFileSync("git", ["status", "--porcelain", "--", file], { cwd: ROOT, encoding: "utf8" }).trim() !== "";
const results = [];
for (const m of chosen) {
  const path = join(ROOT, m.file);
  const original = readFileSync(path, "utf8");
  const found = original.split(m.find).length - 1;
  if (found !== 1) {
    results.push({ ...m, outcome: "stale", detail: `the text is found ${found} times` });
    console.log(`stale     ${m.id}  (${m.file}: the text is found ${found} times)`);
    continue;
  }
  if (dirty(m.file)) throw new Error(`${m.file} has uncommitted changes: commit or stash them first (a mutation rewrites the file)`);
  const started = Date.now();
  restore = () => writeFileSync(path, original);
  try {
    writeFileSync(path, original.replace(m.find, () => m.replace));
    const run = spawnSync("npx", ["vitest", "run", ...m.tests, "--project", "express5", "--retry", "0", "--bail", "1", "--reporter", "dot"], {
      cwd: ROOT, encoding: "utf8", env: { ...process.env, EOA_DIST_BUILT: "1", CI: "" },
    });
    const seconds = ((Date.now() - started) / 1000).toFixed(0);
    // Caught: a test failed. A run that found no test file is an error of the list, not a catch.
    const noTests = /No test files found/.test(run.stdout + run.stderr);
    const outcome = noTests ? "stale" : run.status !== 0 ? "caught" : m.equivalent ? "equivalent" : "SURVIVED";
    results.push({ ...m, outcome, seconds });
    console.log(`${outcome.padEnd(9)} ${m.id}  (${seconds} s)${outcome === "SURVIVED" ? `  ${m.why}` : outcome === "equivalent" ? `  ${m.equivalent}` : ""}`);
  } finally {
    restore();
    restore = undefined;
  }
}
const count = (o) => results.filter((r) => r.outcome === o).length;
console.log(`\n${results.length} mutations: ${count("caught")} caught, ${count("SURVIVED")} survived, ${count("equivalent")} equivalent, ${count("stale")} stale`);
process.exitCode = count("SURVIVED") + count("stale") > 0 ? 1 : 0;
