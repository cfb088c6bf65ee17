/**
 * Finding: extra fields of the host app's user must not reach the platform. With
 * `student: (req) => req.user` and a user carrying `id`, `role`, `passwordHash` and
 * `sessionToken`, the sign-in token requests the emulator receives (its request log
 * keeps each body) carry only the documented fields: the student's four
 * (`StudentIdentity`) plus `classId`/`courseId`. From a launch and from prepare rosters
 * (the body's and the `roster` option's) alike.
 */
import { afterEach, describe, expect, it } from "vitest";
import { StudentIdentity } from "../../src/platform/schemas.js";
import { userNamed } from "../support/users.js";
import { readJson, startStormStack, until, type StormStack } from "../storm/support.js";

const SECRETS = { passwordHash: "$argon2id$v=19$secret-hash", sessionToken: "sess-0123456789abcdef" };
const DOCUMENTED = new Set([...Object.keys(StudentIdentity.shape), "classId", "courseId"]);

/** A host app's user record: the student's fields and everything else an LMS keeps. */
const userWithExtras = (username: string) => {
  const u = userNamed(username);
  return { ...u, email: u.email ?? "", firstName: u.firstName ?? "", lastName: u.lastName ?? "", orgInternalId: u.id, role: u.role, ...SECRETS };
};

let stack: StormStack | undefined;
afterEach(async () => {
  await stack?.close();
  stack = undefined;
});

function expectOnlyDocumentedFields(bodies: unknown[]): void {
  expect(bodies.length).toBeGreaterThan(0);
  for (const body of bodies) {
    const keys = Object.keys(body as object);
    expect(keys.filter((k) => !DOCUMENTED.has(k)), JSON.stringify(keys)).toEqual([]);
    const text = JSON.stringify(body);
    for (const secret of Object.values(SECRETS)) expect(text).not.toContain(secret);
  }
}

describe("extra fields of the user never reach the platform", () => {
  it("a launch with student: (req) => req.user sends only the documented fields", async () => {
    stack = await startStormStack({
      router: { student: (req) => ({ ...(req.user as object), ...userWithExtras((req.user as { username: string }).username) }) },
    });
    const { examId } = await stack.seedExam();
    const res = await stack.as("ada", `/oral/launch/${examId}`);
    expect(res.status).toBe(303);
    const signIns = stack.signIns();
    expect(signIns).toHaveLength(1);
    expectOnlyDocumentedFields(signIns.map((r) => r.body));
    expect(signIns[0]?.body).toMatchObject({ orgInternalId: "u-ada", email: "ada@school.test" });
  });

  it("prepare rosters, from the body and from the roster option, send only the documented fields", async () => {
    stack = await startStormStack({ router: { roster: () => [userWithExtras("bob")] } });
    const { examId } = await stack.seedExam();
    const startAt = new Date(Date.now() + 60_000).toISOString();
    const fromBody = await stack.as("ines", `/oral/oral-assessments/${examId}/prepare`, { method: "POST", body: { startAt, roster: [userWithExtras("ada")] } });
    expect(fromBody.status, JSON.stringify(await readJson(fromBody.clone()))).toBe(202);
    await until(() => stack!.signIns().length >= 1);
    const fromOption = await stack.as("ines", `/oral/oral-assessments/${examId}/prepare`, { method: "POST", body: { startAt } });
    expect(fromOption.status).toBe(202);
    await until(() => stack!.signIns().some((r) => (r.body as { orgInternalId?: string }).orgInternalId === "u-bob"));
    expectOnlyDocumentedFields(stack.signIns().map((r) => r.body));
  });
});
