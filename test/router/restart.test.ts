import { startTestEmulator } from "../support/emulator.js";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { DEFAULT_ORGANIZATION, sqliteStore } from "../../src/index.js";
import { startStack } from "../support/stack.js";

const dir = mkdtempSync(join(tmpdir(), "eoa-restart-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("a registry that survives restarts", () => {
  it("launches an exam created before the app restarted on the same SQLite file", async () => {
    const filename = join(dir, "oral.sqlite");
    const emulator = await startTestEmulator();
    try {
      const first = await startStack({ useEmulator: emulator, router: { store: sqliteStore({ filename }) } });
      const ids = await first.seedExam();
      await first.close();

      const second = await startStack({ useEmulator: emulator, router: { store: sqliteStore({ filename }) } });
      try {
        const res = await (await second.login("ada")).get(`/oral/launch/${ids.examId}`).expect(303);
        expect(new URL(res.headers.location ?? "").pathname).toBe(`/exam/${ids.examId}`);
      } finally { await second.close(); }
      // What the first app wrote is in the file itself (lists through the router would come from the platform).
      const reopened = sqliteStore({ filename });
      try {
        expect(await reopened.getAssessment(DEFAULT_ORGANIZATION, ids.examId)).toMatchObject({ id: ids.examId, classId: ids.classId, courseId: ids.courseId, kind: "oral" });
        expect((await reopened.listClasses(DEFAULT_ORGANIZATION, ids.courseId)).map((c) => c.id)).toEqual([ids.classId]);
      } finally { await reopened.close(); }
    } finally { await emulator.close(); }
  });
});
