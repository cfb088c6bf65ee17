/**
 * Fields the schemas do not model pass through to the platform, but bounded: a value
 * nested past 32 levels or larger than 64 KiB is refused before anything is sent (the
 * client), and by the emulator itself when a raw request carries one.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Emulator } from "../../src/emulator/index.js";
import { PlatformInvalidRequestError } from "../../src/platform/index.js";
import { PASS_THROUGH_MAX_BYTES, PASS_THROUGH_MAX_DEPTH } from "../../src/platform/pass-through.js";
import { TEST_KEY } from "../support/keys.js";
import { clientFor, emulatorWith, rejectionOf, type TestClient } from "./support.js";

let emulator: Emulator;
let client: TestClient;
beforeAll(async () => {
  emulator = await emulatorWith();
  client = clientFor(emulator.url);
});
afterAll(async () => {
  client.close();
  await emulator.close();
});
beforeEach(() => emulator.reset());

/** `{ d: { d: … 1 } }` with `levels` objects. */
function nested(levels: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < levels; i++) value = { d: value };
  return value;
}

describe("pass-through fields", () => {
  it("keeps unknown fields up to the bounds, and sends them", async () => {
    const course = await client.courses.create({ name: "Deep but fine", extra: nested(PASS_THROUGH_MAX_DEPTH), note: "x".repeat(1000) });
    expect(course.data).toMatchObject({ name: "Deep but fine", note: "x".repeat(1000) });
    expect(emulator.requests).toHaveLength(1);
  });

  it.each([
    ["nested 3,000 deep", () => nested(3000), /nested at most 32/],
    ["one level past the bound", () => nested(PASS_THROUGH_MAX_DEPTH + 1), /nested at most 32/],
    ["an array nested 100 deep", () => JSON.parse("[".repeat(100) + "]".repeat(100)) as unknown, /nested at most 32/],
    ["larger than 64 KiB", () => "x".repeat(PASS_THROUGH_MAX_BYTES + 1), /at most 65536 bytes/],
    ["many small values past 64 KiB", () => Array.from({ length: 20_000 }, (_, i) => i), /at most 65536 bytes/],
  ])("refuses a field %s, naming it, and sends nothing", async (_label, value, message) => {
    const error = await rejectionOf(client.courses.create({ name: "C", extra: value() }));
    expect(error).toBeInstanceOf(PlatformInvalidRequestError);
    expect(error.field).toBe("extra");
    expect(error.message).toMatch(message);
    expect(emulator.requests).toHaveLength(0);
  });

  it("bounds unknown fields of nested objects too (a question), naming the path", async () => {
    const { data: course } = await client.courses.create({ name: "C" });
    const { data: cls } = await client.classes.create(course._id, { name: "K", startDate: "2026-09-01", endDate: "2026-12-01" });
    const before = emulator.requests.length;
    const error = await rejectionOf(client.oralAssessments.create({ name: "E", classId: cls._id, questions: [{ text: "Q", hint: nested(40) }] }));
    expect(error.field).toBe("questions.0.hint");
    expect(emulator.requests).toHaveLength(before);
  });

  it("is refused by the emulator too when a raw request carries one (400 naming the field, nothing stored)", async () => {
    const res = await fetch(`${emulator.url}/api/v1/dev/courses`, {
      method: "POST",
      headers: { authorization: `Bearer ${TEST_KEY}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "C", extra: nested(3000) }),
    });
    expect(res.status).toBe(400);
    expect(await res.text()).toMatch(/extra/);
    expect(emulator.state().courses).toHaveLength(0);
  });
});
