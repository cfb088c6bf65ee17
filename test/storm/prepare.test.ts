/**
 * Pre-warming: `POST /oral-assessments/:examId/prepare` issues the roster's tokens ahead
 * of the start, and a launch then needs no platform call. A prepared token goes to its
 * own student only (id and e-mail), once; a stale one is never handed out; the route
 * validates its input and reports progress.
 */
import { readFileSync } from "node:fs";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { sqliteStore } from "../../src/index.js";
import { readJson, rosterOf, startStormStack, ticketOf, until, type StormStack } from "./support.js";

let stack: StormStack | undefined;
afterEach(async () => {
  await stack?.close();
  stack = undefined;
});

type Progress = Record<string, number | string>;
type Problem = { status: number; code: string; errors: { path: string }[] };

async function progressOf(s: StormStack, examId: string): Promise<Progress> {
  const res = await s.as("ines", `/oral/oral-assessments/${examId}/prepare`);
  expect(res.status).toBe(200);
  return (await readJson<{ data: Progress }>(res)).data;
}

async function prepare(s: StormStack, examId: string, body: unknown): Promise<Response> {
  return s.as("ines", `/oral/oral-assessments/${examId}/prepare`, { method: "POST", body });
}

const inAMinute = () => new Date(Date.now() + 60_000).toISOString();

describe("a prepared exam", () => {
  it("hands each student their own prepared token with no platform call, once; a second launch is on demand", async () => {
    stack = await startStormStack();
    const { examId } = await stack.seedExam();
    const res = await prepare(stack, examId, { startAt: inAMinute(), roster: ["ada", "bob"].map(rosterOf) });
    expect(res.status).toBe(202);
    expect((await readJson<{ data: Progress }>(res)).data).toMatchObject({ examId, roster: 2 });
    await until(async () => (await progressOf(stack!, examId)).ready === 2);
    const issued = stack.signIns().length;
    expect(issued).toBe(2);

    // Matched on id *and* e-mail: Ada's id with another e-mail gets nothing of hers.
    const impostor = await stack.as("impostor", `/oral/launch/${examId}`);
    expect(impostor.status).toBe(303);
    expect(stack.signIns()).toHaveLength(issued + 1);
    expect(await progressOf(stack, examId)).toMatchObject({ ready: 2, handedOut: 0 });

    const ada = await stack.as("ada", `/oral/launch/${examId}`);
    expect(ada.status).toBe(303);
    expect(ada.headers.get("cache-control")).toBe("no-store");
    expect(stack.signIns()).toHaveLength(issued + 1); // no platform call for Ada
    expect(await (await fetch(ada.headers.get("location")!)).text()).toContain("Signed in as Ada Lovelace");

    const again = await stack.as("ada", `/oral/launch/${examId}`);
    expect(ticketOf(again.headers.get("location")!)).not.toBe(ticketOf(ada.headers.get("location")!));
    expect(stack.signIns()).toHaveLength(issued + 2); // the second launch asked on demand
    expect(await (await fetch(again.headers.get("location")!)).text()).toContain("Signed in as Ada Lovelace");

    expect(await progressOf(stack, examId)).toMatchObject({ roster: 2, ready: 1, handedOut: 1, pending: 0, failed: 0 });
  });

  it("never hands out a token with less than minTokenLifeMs left; the launch asks on demand", async () => {
    // Tokens live 1.5 s; handed out only in their first 0.5 s; not refreshed after keepUntil.
    stack = await startStormStack({
      emulator: { tokenTtlMs: 1_500 },
      router: { prewarm: { tokenTtlMs: 1_500, minTokenLifeMs: 1_000, leadMs: 10_000, keepAfterStartMs: 300 } },
    });
    const { examId } = await stack.seedExam();
    await prepare(stack, examId, { startAt: new Date(Date.now() + 200).toISOString(), roster: [rosterOf("ada")] });
    await until(async () => (await progressOf(stack!, examId)).expired === 1);
    const issued = stack.signIns().length;

    const res = await stack.as("ada", `/oral/launch/${examId}`);
    expect(res.status).toBe(303);
    expect(stack.signIns()).toHaveLength(issued + 1);
    expect(await (await fetch(res.headers.get("location")!)).text()).toContain("Signed in as Ada Lovelace");
    expect(await progressOf(stack, examId)).toMatchObject({ onDemand: 1, handedOut: 0, ready: 0 });
  });

  it("keeps back a token in the last minTokenLifeMs of its life, though the platform would still accept it", async () => {
    // 20 s tokens, handed out only in their first second; no refresh after the start.
    stack = await startStormStack({
      emulator: { tokenTtlMs: 20_000 },
      router: { prewarm: { tokenTtlMs: 20_000, minTokenLifeMs: 19_000, leadMs: 10_000, keepAfterStartMs: 0 } },
    });
    const { examId } = await stack.seedExam();
    await prepare(stack, examId, { startAt: new Date(Date.now() + 200).toISOString(), roster: [rosterOf("ada")] });
    await until(async () => (await progressOf(stack!, examId)).ready === 1);
    // Issued before `ready` was seen: a second after that, its usable second is over; its 20 s life is not.
    const readySeenAt = Date.now();
    await new Promise((r) => setTimeout(r, Math.max(0, readySeenAt + 1_001 - Date.now())));
    const issued = stack.signIns().length;

    const res = await stack.as("ada", `/oral/launch/${examId}`);
    expect(res.status).toBe(303);
    expect(stack.signIns()).toHaveLength(issued + 1); // asked on demand, not the prepared token
    expect(await progressOf(stack, examId)).toMatchObject({ onDemand: 1, handedOut: 0 });
  });

  it("refreshes unused tokens before they go stale, until keepAfterStartMs", async () => {
    stack = await startStormStack({
      emulator: { tokenTtlMs: 1_500 },
      router: { prewarm: { tokenTtlMs: 1_500, minTokenLifeMs: 1_000, leadMs: 10_000, keepAfterStartMs: 60_000 } },
    });
    const { examId } = await stack.seedExam();
    await prepare(stack, examId, { startAt: new Date().toISOString(), roster: [rosterOf("ada")] });
    await until(async () => Number((await progressOf(stack!, examId)).platformCalls) >= 4);
    await until(async () => (await progressOf(stack!, examId)).ready === 1);

    const res = await stack.as("ada", `/oral/launch/${examId}`);
    expect(res.status).toBe(303);
    // Whatever the launch got is within its life: the emulator (1.5 s tokens) accepts it.
    expect(await (await fetch(res.headers.get("location")!)).text()).toContain("Signed in as Ada Lovelace");
    const progress = await progressOf(stack, examId);
    expect(Number(progress.handedOut) + Number(progress.onDemand)).toBe(1);
  });

  it("uses the roster option when the body has none, and offers a programmatic API", async () => {
    const asked: string[] = [];
    stack = await startStormStack({ router: { roster: (classId) => { asked.push(classId); return [rosterOf("bob")]; } } });
    const { examId, classId } = await stack.seedExam();
    const res = await prepare(stack, examId, { startAt: inAMinute() });
    expect(res.status).toBe(202);
    expect(asked).toEqual([classId]);
    expect(stack.router.preparation(examId)).toMatchObject({ examId, classId, roster: 1 });

    const progress = await stack.router.prepare(examId, { startAt: new Date(Date.now() + 60_000), roster: ["ada", "bob"].map(rosterOf) });
    expect(progress).toMatchObject({ roster: 2 });
    await until(() => stack!.router.preparation(examId)?.ready === 2);
    await expect(stack.router.prepare("nope", { startAt: new Date() })).rejects.toMatchObject({ name: "PrepareError", status: 404 });
  });

  it("keeps tokens out of the store, the logs and the progress report", async () => {
    const dir = mkdtempSync(join(tmpdir(), "eoa-prepare-"));
    const filename = join(dir, "store.sqlite");
    try {
      stack = await startStormStack({ router: { store: sqliteStore({ filename }) } });
      const { examId } = await stack.seedExam();
      await prepare(stack, examId, { startAt: inAMinute(), roster: ["ada", "bob"].map(rosterOf) });
      await until(async () => (await progressOf(stack!, examId)).ready === 2);
      expect(JSON.stringify(await progressOf(stack, examId))).not.toContain("signin_");
      expect(JSON.stringify(stack.logger.lines)).not.toContain("signin_");
      for (const file of [filename, `${filename}-wal`]) {
        let bytes = "";
        try { bytes = readFileSync(file).toString("latin1"); } catch { /* no WAL file */ }
        expect(bytes).not.toContain("signin_");
      }
    } finally {
      await stack?.close();
      stack = undefined;
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("POST /oral-assessments/:examId/prepare input", () => {
  it("answers 400 problem+json naming each invalid field", async () => {
    stack = await startStormStack({ router: { prewarm: { maxRoster: 2 } } });
    const { examId } = await stack.seedExam();
    const cases: [unknown, string[]][] = [
      [{}, ["startAt"]],
      [{ startAt: "tomorrow at nine", roster: [rosterOf("ada")] }, ["startAt"]],
      [{ startAt: "2026-09-01T09:00:00", roster: [rosterOf("ada")] }, ["startAt"]],
      [{ startAt: inAMinute(), roster: [{ email: "not-an-email", firstName: " ", orgInternalId: "x" }] }, ["roster.0.email", "roster.0.firstName", "roster.0.lastName"]],
      [{ startAt: inAMinute(), roster: ["ada", "bob", "s1"].map(rosterOf) }, ["roster"]],
      [{ startAt: inAMinute(), roster: [] }, ["roster"]],
      [{ startAt: inAMinute() }, ["roster"]],
      [{ startAt: new Date(Date.now() - 86_400_000).toISOString(), roster: [rosterOf("ada")] }, ["startAt"]],
    ];
    for (const [body, paths] of cases) {
      const res = await prepare(stack, examId, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.headers.get("content-type")).toMatch(/^application\/problem\+json/);
      const problem = await readJson<Problem>(res);
      expect(problem).toMatchObject({ status: 400, code: "validation_error" });
      expect(problem.errors.map((e) => e.path).sort(), JSON.stringify(body)).toEqual(paths.sort());
    }
    const malformed = await stack.as("ines", `/oral/oral-assessments/${examId}/prepare`, { method: "POST", body: "{not json" });
    expect(malformed.status).toBe(400);
    expect((await readJson<Problem>(malformed)).code).toBe("malformed_json");
    expect(stack.signIns()).toHaveLength(0);
  });

  it("answers 404 for an unknown exam, 404 for progress of an unprepared one, and guards both routes", async () => {
    stack = await startStormStack();
    const { examId } = await stack.seedExam();
    const unknown = await prepare(stack, "0123456789abcdef01234567", { startAt: inAMinute(), roster: [rosterOf("ada")] });
    expect(unknown.status).toBe(404);
    expect((await readJson<Problem>(unknown)).code).toBe("not_found");
    const notPrepared = await stack.as("ines", `/oral/oral-assessments/${examId}/prepare`);
    expect(notPrepared.status).toBe(404);
    expect((await readJson<Problem>(notPrepared)).code).toBe("not_prepared");
    expect((await stack.as("ada", `/oral/oral-assessments/${examId}/prepare`, { method: "POST", body: { startAt: inAMinute() } })).status).toBe(403);
    expect((await stack.as(undefined, `/oral/oral-assessments/${examId}/prepare`)).status).toBe(401);
  });

  it("reports progress: scheduled before the lead, then ready, handed out and failed counts", async () => {
    stack = await startStormStack({ emulator: { classCapacity: 1 }, router: { prewarm: { leadMs: 60_000 } } });
    const { examId } = await stack.seedExam();
    const later = await prepare(stack, examId, { startAt: new Date(Date.now() + 3_600_000).toISOString(), roster: [rosterOf("ada")] });
    expect((await readJson<{ data: Progress }>(later)).data).toMatchObject({ state: "scheduled", roster: 1, ready: 0, pending: 1, platformCalls: 0 });

    // Replaced by a plan that starts now; a class of one: Bob is refused (409 conflict).
    await prepare(stack, examId, { startAt: inAMinute(), roster: ["ada", "bob", "ada"].map(rosterOf) });
    await until(async () => (await progressOf(stack!, examId)).pending === 0);
    const progress = await progressOf(stack, examId);
    expect(progress).toMatchObject({ state: "ready", roster: 2, ready: 1, failed: 1, handedOut: 0, platformCalls: 2 });
    expect((progress.failures as unknown as { orgInternalId: string; code: string }[])).toEqual([expect.objectContaining({ orgInternalId: "u-bob", code: "conflict" })]);
    await stack.as("ada", `/oral/launch/${examId}`);
    expect(await progressOf(stack, examId)).toMatchObject({ ready: 0, handedOut: 1 });
  });
});
