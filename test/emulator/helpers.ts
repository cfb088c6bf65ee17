/**
 * Shared helpers for the emulator tests: real HTTP with global fetch, no mocks.
 */
import { LIVE_KEY, TEST_KEY } from "../support/keys.js";
import type { Emulator } from "../../src/emulator/index.js";

export interface CallOptions {
  env?: "dev" | "prod";
  /** The key to send; `null` sends no Authorization header. Default: the env's canary key. */
  key?: string | null;
  headers?: Record<string, string>;
  /** A raw body string, sent as is instead of JSON. */
  raw?: string;
  signal?: AbortSignal;
}

export interface Called {
  status: number;
  headers: Headers;
  /** Parsed JSON, or undefined for an empty body. */
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  text: string;
}

/** Calls `/api/v1/<env><path>` on the emulator. */
export async function call(emu: Emulator, method: string, path: string, body?: unknown, opts: CallOptions = {}): Promise<Called> {
  const env = opts.env ?? "dev";
  const key = opts.key === undefined ? (env === "dev" ? TEST_KEY : LIVE_KEY) : opts.key;
  const headers: Record<string, string> = { ...opts.headers };
  if (key !== null) headers.Authorization = `Bearer ${key}`;
  let payload: string | undefined;
  if (opts.raw !== undefined) payload = opts.raw;
  else if (body !== undefined) payload = JSON.stringify(body);
  if (payload !== undefined) headers["Content-Type"] ??= "application/json";
  const res = await fetch(`${emu.url}/api/v1/${env}${path}`, { method, headers, body: payload, signal: opts.signal });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined, text };
}

export const COURSE = { name: "Biology 101", level: "undergraduate" };
export const CLASS = { name: "Autumn term", classMode: "online", startDate: "2026-09-01T09:00:00.000Z", endDate: "2026-12-15T17:00:00.000Z" };
export const student = (n: number, extra: Record<string, unknown> = {}) => ({
  email: `student${n}@example.edu`, firstName: "Ada", lastName: `Lovelace${n}`, orgInternalId: `s-${n}`, ...extra,
});

/** Creates a course, a class and an assessment; returns their ids. */
export async function seed(emu: Emulator, opts: CallOptions = {}): Promise<{ courseId: string; classId: string; examId: string }> {
  const course = await call(emu, "POST", "/courses", COURSE, opts);
  const courseId = course.body.data._id as string;
  const klass = await call(emu, "POST", `/courses/${courseId}/classes`, CLASS, opts);
  const classId = klass.body.data._id as string;
  const exam = await call(emu, "POST", "/oral-assessments", {
    name: "Cell biology oral", classId, duration: 600, examType: "Generic",
    questions: [{ id: "q1", text: "Explain osmosis." }, { id: "q2", text: "What does a ribosome do?" }],
  }, opts);
  return { courseId, classId, examId: exam.body.data._id as string };
}

/** Asks for a sign-in token and returns it. */
export async function tokenFor(emu: Emulator, classId: string, n = 1): Promise<string> {
  const res = await call(emu, "POST", "/students/sign-in-token", { ...student(n), classId });
  if (res.status !== 200) throw new Error(`sign-in-token answered ${res.status}`);
  return res.body.data.token as string;
}
