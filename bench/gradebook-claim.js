/**
 * The score outbox's claim at size (issue 42): a real sqliteStore (a file in a temp dir)
 * and a real postgresStore (EOA_BENCH_POSTGRES_URL, default
 * postgres://postgres@127.0.0.1:5432/test, in a schema of its own, dropped after) are
 * filled through the stores' own `addLtiScores` (batches of 1,000) and `settleLtiScore`
 * (half the rows settled `sent`), so the rows are exactly the ones the store makes: many
 * learners (one entry per learner and exam), 4 LMSs. Timed: `claimLtiScores(now, 20,
 * 60_000)` (the outbox's default batch and lease), 50 claims at 1,000 rows, then the same
 * table grown to 100,000 rows, in the same run; after each claim what it took is settled
 * back to pending and due (its own `nextAtMs`), so every claim sees the same table.
 * Target: p95 of a claim < 5 ms at 100,000 rows, on each store.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { postgresStore, sqliteStore } from "express-oral-assessments";
import { median, percentile, round } from "./lib/stats.js";

const LEARNERS = 5_000;
const LMSS = 4;
const BATCH = 20;
const LEASE_MS = 60_000;

/** Entry `n`: learner n % 5,000 on exam n / 5,000, in course n % 50 of LMS n % 4. */
function entryOf(n, at) {
  const lms = n % LMSS;
  const contextId = `course-${n % 50}`;
  const examId = `exam-${Math.floor(n / LEARNERS)}`;
  return {
    id: `bench-${n}`,
    key: { issuer: `https://lms${lms}.bench.example`, clientId: "client", deploymentId: "1", contextId, kind: "oral", examId },
    userId: `learner-${n % LEARNERS}`,
    student: { orgInternalId: `s${n % LEARNERS}`, email: `s${n % LEARNERS}@bench.example` },
    ags: { lineItems: `https://lms${lms}.bench.example/api/lti/courses/${contextId}/line_items`, scope: ["https://purl.imsglobal.org/spec/lti-ags/scope/score"] },
    label: "Oral exam",
    score: { activityProgress: "Submitted", gradingProgress: "Pending", timestamp: at, comment: "" },
    queuedAt: at,
  };
}

/** Rows [from, to): added 1,000 at a time, then every even one settled `sent` (8 settles in flight). */
async function fill(store, from, to) {
  const at = new Date().toISOString();
  for (let i = from; i < to; i += 1_000) {
    await store.addLtiScores("bench", Array.from({ length: Math.min(1_000, to - i) }, (_, j) => entryOf(i + j, at)));
  }
  const sent = [];
  for (let n = from; n < to; n += 1) if (n % 2 === 0) sent.push(n);
  let next = 0;
  await Promise.all(Array.from({ length: 8 }, async () => {
    while (next < sent.length) {
      const n = sent[next++];
      await store.settleLtiScore(`bench-${n}`, { state: "sent", attempts: 1, nextAtMs: Date.now(), sentAt: at });
    }
  }));
}

/** `rounds` claims; each one's entries settled back to pending and due, untimed. */
async function timeClaims(store, rounds) {
  const times = [];
  let claimed = 0;
  for (let r = 0; r < rounds + 5; r += 1) {
    const now = Date.now();
    const started = performance.now();
    const got = await store.claimLtiScores(now, BATCH, LEASE_MS);
    const ms = performance.now() - started;
    if (r >= 5) times.push(ms); // the first 5 warm the statements and caches
    claimed += got.length;
    for (const e of got) await store.settleLtiScore(e.id, { state: "pending", attempts: 0, nextAtMs: now - 1 });
  }
  return { p50Ms: round(median(times), 3), p95Ms: round(percentile(times, 95), 3), maxMs: round(Math.max(...times), 3), claimedPerClaim: claimed / (rounds + 5) };
}

async function measure(name, store, { rounds, sizes, log }) {
  const out = { store: name };
  let have = 0;
  for (const size of sizes) {
    const started = performance.now();
    await fill(store, have, size);
    have = size;
    log(`gradebookClaim: ${name} filled to ${size} rows in ${round((performance.now() - started) / 1000, 1)} s`);
    out[size] = { ...(await timeClaims(store, rounds)), loadAverage: round(loadavg()[0], 2) };
    log(`gradebookClaim: ${name} at ${size} rows: ${JSON.stringify(out[size])}`);
  }
  return out;
}

export async function runGradebookClaim({ rounds = 50, sizes = [1_000, 100_000], log }) {
  const loadBefore = round(loadavg()[0], 2);
  const dir = mkdtempSync(join(tmpdir(), "eoa-claim-"));
  const sqlite = sqliteStore({ filename: join(dir, "claim.sqlite") });
  const url = process.env.EOA_BENCH_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test";
  const schema = `eoa_bench_${randomBytes(4).toString("hex")}`;
  const postgres = postgresStore({ connectionString: url, schema });
  const admin = new pg.Pool({ connectionString: url, max: 1 });
  try {
    const result = { rows: sizes, batch: BATCH, rounds };
    result.sqlite = await measure("sqlite", sqlite, { rounds, sizes, log });
    result.postgres = await measure("postgres", postgres, { rounds, sizes, log });
    result.loadAverage = { before: loadBefore, after: round(loadavg()[0], 2) };
    return result;
  } finally {
    await sqlite.close();
    await postgres.close();
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).finally(() => admin.end());
    rmSync(dir, { recursive: true, force: true });
  }
}
