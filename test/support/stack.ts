/**
 * The whole stack for router tests, all over real HTTP on 127.0.0.1: the emulator, a
 * platform client pointed at it, and a passport session app with the router at `/oral`.
 */
import request from "supertest";
import { createPlatformClient, memoryStore, type OralAssessmentsOptions, type PlatformClientOptions } from "../../src/index.js";
import type { Emulator, EmulatorOptions, ReceivedRequest } from "../../src/emulator/index.js";
import { captureLogger } from "./canary.js";
import { startTestEmulator } from "./emulator.js";
import { TEST_KEY } from "./keys.js";
import { seedExam, type ExamIds } from "./seed.js";
import { startSessionApp, type SessionApp } from "./session-app.js";
import { userNamed } from "./users.js";

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
  /** The host app's `trust proxy` (e.g. "loopback": X-Forwarded-For names the client). Default: unset. */
  trustProxy?: string;
}

export async function startStack(options: StackOptions = {}): Promise<Stack> {
  const emulator = options.useEmulator ?? (await startTestEmulator(options.emulator));
  const logger = captureLogger();
  // 3 s per attempt: an answer on a busy machine is an answer, not a timeout (tests of timeouts set their own).
  const platform = createPlatformClient({ apiKey: TEST_KEY, baseUrl: emulator.url, timeoutMs: 3_000, maxRetries: 1, logger, ...options.client });
  const app = await startSessionApp({ platform, store: memoryStore(), examHost: emulator.examHost, logger, ...options.router }, "/oral", options.trustProxy);

  const login = async (username: string) => {
    const user = userNamed(username);
    const agent = request.agent(app.url);
    await agent.post("/login").send({ username, password: user.password }).expect(204);
    return agent;
  };

  const seed = async (): Promise<ExamIds> => {
    const ines = await login("ines");
    return seedExam(async (path, body) => (await ines.post(path).send(body as object).expect(201)).body);
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
    seedExam: seed,
    close: async () => {
      await app.close();
      platform.close();
      if (!options.useEmulator) await emulator.close();
    },
  };
}
