/**
 * The OpenAPI document against the router's real answers, route by route: every status
 * a route answers with (success, the guards, invalid input, unknown ids, idempotent
 * replays and reuse, platform failures, the launch's pages) is one the document lists
 * for that route, with every header the document says it always sends (and its value
 * where the document fixes one) and a documented content type.
 */
import { randomUUID } from "node:crypto";
import type request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildOpenApiDocument } from "../src/index.js";
import { ROUTES, type OperationId, type RouteSpec } from "../src/api/routes.js";
import type { Emulator } from "../src/emulator/index.js";
import { startTestEmulator } from "./support/emulator.js";
import { metaRefresh } from "./support/html-page.js";
import { startStack, type Stack } from "./support/stack.js";

type Json = Record<string, unknown>;
interface DocResponse { headers?: Record<string, { required?: boolean; schema?: { const?: string } }>; content?: Json }
const doc = buildOpenApiDocument() as { paths: Record<string, Record<string, { responses: Record<string, DocResponse> }>>; components: { schemas: Record<string, Json> } };

let emulator: Emulator;
let stack: Stack;
let ines: ReturnType<typeof request.agent>;
let ada: ReturnType<typeof request.agent>;
let bob: ReturnType<typeof request.agent>;
let ids: { courseId: string; classId: string; examId: string; roleplayId: string };
/** Statuses seen per operation, to show each route was exercised beyond its success. */
const seen = new Map<string, Set<number>>();

const route = (operationId: OperationId): RouteSpec => ROUTES.find((r) => r.operationId === operationId)!;

/** Checks one real answer against the document, and records its status. */
function matches(operationId: OperationId, res: request.Response): void {
  const spec = route(operationId);
  const documented = doc.paths[spec.path]![spec.method]!.responses[String(res.status)];
  const where = `${operationId} ${res.status}`;
  expect(documented, `${where} is not documented`).toBeDefined();
  for (const [name, header] of Object.entries(documented!.headers ?? {})) {
    const value = res.headers[name.toLowerCase()] as string | undefined;
    if (header.required) expect(value, `${where}: header ${name}`).toBeDefined();
    if (value !== undefined && header.schema?.const !== undefined) expect(value, `${where}: header ${name}`).toBe(header.schema.const);
  }
  const type = String(res.headers["content-type"] ?? "").split(";")[0]!;
  if (documented!.content) expect(Object.keys(documented!.content), `${where}: content type`).toContain(type);
  else expect(res.text ?? "", `${where}: no body`).toBe("");
  (seen.get(operationId) ?? seen.set(operationId, new Set()).get(operationId)!).add(res.status);
}

/**
 * A launch's answer followed through its waiting pages (202 with a meta refresh), as a
 * browser does: the last answer. On a loaded machine a launch can take longer than the
 * 300 ms this stack waits before answering with the waiting page.
 */
async function followed(agent: ReturnType<typeof request.agent>, first: request.Response): Promise<request.Response> {
  let res = first;
  for (let i = 0; res.status === 202 && i < 100; i++) {
    const url = metaRefresh(res.text)?.url;
    if (!url) break;
    await new Promise((r) => setTimeout(r, 100));
    res = await agent.get(url).redirects(0);
  }
  return res;
}

const idsOf = (spec: RouteSpec, overrides: Record<string, string> = {}) =>
  spec.path.replace(/\{(\w+)\}/g, (_, name: string) => overrides[name] ?? { courseId: ids.courseId, classId: ids.classId, examId: ids.examId, roleplayId: ids.roleplayId }[name]!);

const ROLEPLAY = {
  name: "Pharmacy", roleplayStudentRole: "Pharmacist", roleplayCoralRole: "Patient",
  roleplayScenario: "A patient asks about a new prescription at the counter of a busy community pharmacy on a Friday evening, shortly before closing time, with a long queue of other customers waiting behind them.",
  roleplayScenarioDetails: "Play a worried but polite patient in their sixties who takes a blood thinner and a daily vitamin. Ask about food, alcohol and missed doses. Answer questions about your history honestly but briefly, and only volunteer the blood thinner if asked about other medicines. Keep replies to two or three sentences, stay in role throughout, and do not give medical advice yourself.",
};

/** A valid body for each route that takes one. */
function bodyFor(operationId: OperationId): Json | undefined {
  switch (operationId) {
    case "createCourse": return { name: "Course" };
    case "updateCourse": return { name: "Renamed" };
    case "createClass": return { name: "Class", startDate: "2026-09-01", endDate: "2026-12-20" };
    case "updateClass": return { name: "Renamed class" };
    case "createOralAssessment": return { name: "Exam", classId: ids.classId, questions: [{ text: "Why?" }] };
    case "updateOralAssessment": return { duration: 900 };
    case "createRoleplay": return { ...ROLEPLAY, classId: ids.classId };
    case "updateRoleplay": return { roleplayDuration: 900 };
    case "prepareExam": return { startAt: new Date(Date.now() + 3_600_000).toISOString(), roster: [{ email: "ada@school.test", firstName: "Ada", lastName: "Lovelace", orgInternalId: "u-ada" }] };
    default: return undefined;
  }
}

function send(agent: ReturnType<typeof request.agent>, spec: RouteSpec, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const req = agent[spec.method](`/oral${path}`).set(headers).redirects(0);
  return body === undefined ? req : req.send(body as object);
}

beforeAll(async () => {
  emulator = await startTestEmulator({ classCapacity: 4, rateLimits: { dev: 100_000 } });
  stack = await startStack({
    useEmulator: emulator,
    client: { timeoutMs: 400, maxRetries: 0, rateLimitPerMinute: 100_000 },
    router: {
      waitingPageAfterMs: 300,
      launchLimit: { burst: 2, refillMs: 600_000 },
      canLaunch: (req) => (req.user as { username?: string } | undefined)?.username !== "bob",
    },
  });
  [ines, ada, bob] = await Promise.all([stack.login("ines"), stack.login("ada"), stack.login("bob")]);
  const seeded = await stack.seedExam();
  const roleplay = await ines.post("/oral/roleplays").send({ ...ROLEPLAY, classId: seeded.classId }).expect(201);
  ids = { ...seeded, roleplayId: roleplay.body.data._id };
});

afterAll(async () => {
  await stack.close();
  await emulator.close();
});

const INSTRUCTOR: RouteSpec[] = (ROUTES as readonly RouteSpec[]).filter((r) => r.feature === "instructor" || r.feature === "prepare");

describe("the instructor API's real answers are the document's", () => {
  it.each(INSTRUCTOR.map((r) => [r.operationId, r] as const))("%s", async (operationId, spec) => {
    const id = operationId as OperationId;
    const body = bodyFor(id);
    // A delete works on records of its own, so the other routes keep theirs.
    const saved = ids;
    if (spec.method === "delete") {
      const fresh = await stack.seedExam();
      const roleplay = await ines.post("/oral/roleplays").send({ ...ROLEPLAY, classId: fresh.classId }).expect(201);
      ids = { ...fresh, roleplayId: roleplay.body.data._id };
    }
    matches(id, await send(stack.anonymous(), spec, idsOf(spec), body));
    matches(id, await send(ada, spec, idsOf(spec), body));
    if (spec.params) {
      // An id that is not a platform id, and one the platform does not know.
      matches(id, await send(ines, spec, idsOf(spec, Object.fromEntries(spec.params.map((p) => [p, "%2e%2e"]))), body));
      if (spec.feature === "instructor") {
        const unknown = Object.fromEntries(spec.params.map((p) => [p, `x${randomUUID().replaceAll("-", "")}`]));
        matches(id, await send(ines, spec, idsOf(spec, unknown), body));
      }
    }
    if (body !== undefined) {
      matches(id, await send(ines, spec, idsOf(spec), { name: 42, startAt: "soon", roster: "x", duration: -1, roleplayDuration: -1 }));
      matches(id, await send(ines, spec, idsOf(spec), "name=x", { "Content-Type": "text/plain" }));
      matches(id, await send(ines, spec, idsOf(spec), { name: "x".repeat(200_000) }));
    }
    if (spec.upstream && spec.feature === "instructor" && spec.method !== "delete") {
      // (A 429 pauses the whole key: the rate-limited 503 has its own stack below.)
      for (const fault of [{ type: "status", status: 500 }, { type: "hang" }] as const) {
        emulator.fault({ ...fault, count: 1 });
        matches(id, await send(ines, spec, idsOf(spec), body));
        emulator.clearFaults();
      }
    }
    if (spec.method === "post") {
      const key = randomUUID();
      const first = await send(ines, spec, idsOf(spec), body, { "Idempotency-Key": key });
      matches(id, first);
      const replay = await send(ines, spec, idsOf(spec), body, { "Idempotency-Key": key });
      matches(id, replay);
      expect(replay.headers["idempotent-replayed"]).toBe("true");
      matches(id, await send(ines, spec, idsOf(spec), { ...body, name: "another" }, { "Idempotency-Key": key }));
    } else {
      matches(id, await send(ines, spec, idsOf(spec), body));
    }
    const statuses = seen.get(id)!;
    expect([...statuses].some((s) => s < 300), `${id}: a success was seen`).toBe(true);
    for (const status of [401, 403]) expect(statuses.has(status), `${id}: ${status} seen`).toBe(true);
    ids = saved;
  });
});

describe("a rate-limited platform", () => {
  it("is a documented 503 problem with Retry-After on every instructor route that calls it", async () => {
    const limited = await startStack({ useEmulator: emulator, client: { timeoutMs: 800, maxRetries: 0, rateLimitPerMinute: 100_000 } });
    try {
      const agent = await limited.login("ines");
      emulator.fault({ type: "status", status: 429, retryAfter: 3600, count: 1 });
      // The first call meets the 429; the key is then paused, and every later call is refused unsent.
      for (const spec of INSTRUCTOR.filter((r) => r.upstream && r.method !== "delete")) {
        const res = await send(agent, spec, idsOf(spec), bodyFor(spec.operationId as OperationId));
        expect(res.status, spec.operationId).toBe(503);
        matches(spec.operationId as OperationId, res);
      }
    } finally {
      emulator.clearFaults();
      await limited.close();
    }
  });
});

describe("the launch routes' real answers are the document's", () => {
  it.each([["launchExam"], ["launchRoleplay"]] as const)("%s", async (operationId) => {
    const spec = route(operationId);
    const path = idsOf(spec);
    // Signed out, refused by canLaunch, unknown, not an id, a prefetch.
    matches(operationId, await send(stack.anonymous(), spec, path));
    matches(operationId, await send(bob, spec, path));
    matches(operationId, await send(ada, spec, idsOf(spec, { examId: "x".repeat(24), roleplayId: "x".repeat(24) })));
    matches(operationId, await send(ada, spec, idsOf(spec, { examId: "%2e%2e", roleplayId: "%2e%2e" })));
    matches(operationId, await send(ada, spec, path, undefined, { "Sec-Purpose": "prefetch" }));
    // The redirect; then a slow platform: the waiting page.
    matches(operationId, await send(ada, spec, path));
    emulator.fault({ type: "hang", count: 1 });
    const waiting = await send(ada, spec, path);
    matches(operationId, waiting);
    emulator.clearFaults();
    // A student's share is a burst of 2: the third launch is 429.
    const student = await stack.login(operationId === "launchExam" ? "s5" : "s6");
    for (let i = 0; i < 2; i++) expect((await followed(student, await send(student, spec, path))).status).toBe(303);
    matches(operationId, await send(student, spec, path));
    expect(seen.get(operationId)).toEqual(new Set([401, 403, 404, 400, 503, 303, 202, 429]));
  });

  it("a full class is a documented 409 page, a failing platform a documented 502 page", async () => {
    const spec = route("launchExam");
    // Capacity 4: Ada, s5 and s6 are enrolled; s1 takes the last place; s2 finds the class full.
    const [s1, s2, s3] = [await stack.login("s1"), await stack.login("s2"), await stack.login("s3")];
    expect((await followed(s1, await send(s1, spec, idsOf(spec)))).status).toBe(303);
    matches("launchExam", await followed(s2, await send(s2, spec, idsOf(spec))));
    emulator.fault({ type: "status", status: 500, count: 1 });
    matches("launchExam", await followed(s3, await send(s3, spec, idsOf(spec))));
    expect([...seen.get("launchExam")!]).toEqual(expect.arrayContaining([409, 502]));
  });
});
