/**
 * What the client logs: retries at debug and failures at warn, each with method, path,
 * status and attempt, and nothing else: no headers, key, config or bodies (a sign-in
 * response holds a one-time token).
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import type { Emulator } from "../../src/emulator/index.js";
import { clientFor, emulatorWith, rejectionOf } from "./support.js";

let emulator: Emulator;
beforeAll(async () => {
  emulator = await emulatorWith();
});
afterAll(() => emulator.close());

/** Every field a log line may carry. */
const ALLOWED = new Set([
  "method", "path", "status", "kind", "code", "attempt", "attempts", "delayMs", "requestId", "retryAfter", "ms", "what", "issues",
]);

it("logs retries at debug and the final failure at warn, with method, path, status and attempt only", async () => {
  const client = clientFor(emulator.url, { maxRetries: 1 });
  emulator.fault({ type: "status", status: 503, count: 2 });
  await rejectionOf(client.courses.list());
  const retry = client.logger.lines.find((l) => l.msg === "platform call failed; retrying");
  const failure = client.logger.lines.find((l) => l.msg === "platform call failed");
  expect(retry).toMatchObject({ level: "debug", obj: { method: "GET", path: "/courses", status: 503, attempt: 1 } });
  expect(failure).toMatchObject({ level: "warn", obj: { method: "GET", path: "/courses", status: 503, attempts: 2 } });
  client.close();
});

it("never logs a field outside method/path/status/attempt and friends: no headers, config, key or body", async () => {
  const client = clientFor(emulator.url);
  const course = await client.courses.create({ name: "Logged" });
  const klass = await client.classes.create(course.data._id, { name: "K", startDate: "2026-01-01", endDate: "2026-02-01" });
  const { data } = await client.students.createSignInToken({
    email: "log@example.edu", firstName: "L", lastName: "G", orgInternalId: "lg", classId: klass.data._id,
  });
  await rejectionOf(client.courses.retrieve("missing"));
  await rejectionOf(client.courses.create({ name: "" }));
  expect(client.logger.lines.length).toBeGreaterThanOrEqual(5);
  for (const line of client.logger.lines) {
    for (const field of Object.keys(line.obj)) expect(ALLOWED).toContain(field);
  }
  const all = JSON.stringify(client.logger.lines);
  expect(all).not.toContain(data.token);
  expect(all).not.toContain("log@example.edu");
  expect(all).not.toMatch(/authorization|bearer/i);
  client.close();
});
