/**
 * The whole stack for router tests, all over real HTTP on 127.0.0.1: the emulator, a
 * platform client pointed at it, and a passport session app with the router at `/oral`.
 */
import request from "supertest";
import { createPlatformClient, memoryStore, type OralAssessmentsOptions, type PlatformClientOptions } from "../../src/index.js";
import { startEmulator, type Emulator, type EmulatorOptions, type ReceivedRequest } from "../../src/emulator/index.js";
import { captureLogger } from "./canary.js";
import { LIVE_KEY, TEST_KEY } from "./keys.js";
import { startSessionApp, USERS, type SessionApp } from "./session-app.js";

export interface Stack {
  emulator: Emulator;
  app: SessionApp;
  logger: ReturnType<typeof captureLogger>;
  /** A supertest agent logged in as `username` (cookies kept). */
  login(username: string): Promise<ReturnType<typeof request.agent>>;
  /** A supertest agent with no session. */
  anonymous(): ReturnType<typeof request.agent>;
  /**
   * Starts watching the emulator's request log: the returned function lists the API
   * requests received since. (Unlike `emulator.reset()`, it keeps the platform's records.)
   */
  track(): () => ReceivedRequest[];
  /** Creates course → class → assessment as the instructor; returns their ids. */
  seedExam(): Promise<{ courseId: string; classId: string; examId: string }>;
  close(): Promise<void>;
}

export interface StackOptions {
  emulator?: EmulatorOptions;
  client?: Partial<PlatformClientOptions>;
  router?: Partial<OralAssessmentsOptions>;
  /** Share an emulator another stack started (it is left running on close). */
  useEmulator?: Emulator;
}

export async function startStack(options: StackOptions = {}): Promise<Stack> {
  const emulator = options.useEmulator ?? (await startEmulator({ testKeys: [TEST_KEY], liveKeys: [LIVE_KEY], ...options.emulator }));
  const logger = captureLogger();
  const platform = createPlatformClient({ apiKey: TEST_KEY, baseUrl: emulator.url, timeoutMs: 1_000, maxRetries: 1, logger, ...options.client });
  const app = await startSessionApp({ platform, store: memoryStore(), examHost: emulator.examHost, logger, ...options.router });

  const login = async (username: string) => {
    const user = USERS.find((u) => u.username === username);
    if (!user) throw new Error(`no test user ${username}`);
    const agent = request.agent(app.url);
    await agent.post("/login").send({ username, password: user.password }).expect(204);
    return agent;
  };

  const seedExam = async () => {
    const ines = await login("ines");
    const course = await ines.post("/oral/courses").send({ name: "Biology 101" }).expect(201);
    const courseId = course.body.data._id as string;
    const cls = await ines.post(`/oral/courses/${courseId}/classes`).send({ name: "Autumn", startDate: "2026-09-01", endDate: "2026-12-20" }).expect(201);
    const classId = cls.body.data._id as string;
    const exam = await ines.post("/oral/oral-assessments").send({ name: "Cells", classId, questions: [{ text: "What is a cell?" }] }).expect(201);
    return { courseId, classId, examId: exam.body.data._id as string };
  };

  return {
    emulator,
    app,
    logger,
    login,
    anonymous: () => request.agent(app.url),
    track: () => {
      // The log keeps the last 10 000 entries: far more than any router test sends.
      const before = emulator.requests.length;
      return () => emulator.requests.slice(before);
    },
    seedExam,
    close: async () => {
      await app.close();
      platform.close();
      if (!options.useEmulator) await emulator.close();
    },
  };
}
