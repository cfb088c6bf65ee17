/**
 * `createPlatformClient`: the typed client. Its resource methods are built from the
 * endpoint table (`endpoints.ts`, `resources.ts`); everything else (auth, budget,
 * retries, errors) is the shared call pipeline in `call.ts`.
 */
import { z } from "zod";
import { redactKey } from "../core/redact.js";
import { createCaller, type CallResult } from "./call.js";
import { ENDPOINTS } from "./endpoints.js";
import { PlatformInvalidRequestError } from "./errors.js";
import { resolveOptions } from "./options.js";
import { requestPathIssues } from "./paths.js";
import { createRateBudget } from "./rate-budget.js";
import { buildResources, type ResourceKit } from "./resources.js";
import { readRecord } from "./responses.js";
import type { HttpMethod } from "./retry.js";
import { createTransport } from "./transport.js";
import { keyHash } from "./key-hash.js";
import { attachBudgetBinding } from "./budget-binding.js";
import { attachCallObservers, type CallObservers } from "./call-observer.js";
import type { PlatformClient, PlatformClientOptions, RequestOptions, WithMeta } from "./types.js";
import type { PlatformResources } from "./endpoint-types.js";

const USER_AGENT = "express-oral-assessments";
const METHODS: readonly string[] = ["GET", "POST", "PUT", "PATCH", "DELETE"];

export function createPlatformClient(options: PlatformClientOptions): PlatformClient {
  const settings = resolveOptions(options);
  const transport = createTransport({ apiKey: settings.apiKey, maxSockets: settings.maxConcurrency, userAgent: USER_AGENT });
  // A shared budget keys its window by a hash of the key (never the key itself).
  const shared = settings.rateBudget;
  const keyLimit = { perWindow: settings.rateLimitPerMinute, stated: settings.rateLimitGiven };
  const budget = shared ? (shared.forKey?.(keyHash(settings.apiKey), keyLimit) ?? shared) : createRateBudget({
    limit: settings.rateLimitPerMinute,
    learnLimit: !settings.rateLimitGiven,
    windowMs: settings.rateWindowMs,
    normalShare: settings.normalShare,
    maxConcurrency: settings.maxConcurrency,
  });
  const observers: CallObservers = new Map();
  const call = createCaller(settings, transport, budget, observers);
  const log = settings.logger;

  /** Sends, then reads the answer as `schema`. */
  async function record<T extends z.ZodType>(
    schema: T, what: string, method: HttpMethod, path: string, body: unknown, opts: RequestOptions | undefined,
  ): Promise<WithMeta<z.output<T>>> {
    const result = await call(method, path, body, opts);
    try {
      return { data: readRecord(schema, result.data, what, context(method, path, result)), meta: result.meta };
    } catch (error) {
      log.warn({ method, path, status: result.status, kind: "bad_response", requestId: result.requestId }, "platform call failed");
      throw error;
    }
  }

  /** A DELETE: 204 is the expected answer; whatever a 200 carries is not needed. */
  async function remove(path: string, opts: RequestOptions | undefined): Promise<WithMeta<undefined>> {
    const result = await call("DELETE", path, undefined, opts);
    return { data: undefined, meta: result.meta };
  }
  const kit: ResourceKit = {
    record, remove,
    refused: (method, what, issues) => log.debug({ method, what, issues: issues.map((i) => i.path) }, "platform call refused locally"),
  };
  const resources = buildResources(kit);
  const signIn = ENDPOINTS.createSignInToken;

  // Every method is async, so a local refusal is a rejected promise like any other failure.
  const client: PlatformClient = {
    env: settings.env,
    platformOrigin: settings.platformOrigin,
    redactedKey: redactKey(settings.apiKey),
    keyId: keyHash(settings.apiKey),

    // One method per entry of the endpoint table; their types are derived from it too (endpoint-types.ts).
    ...(resources as unknown as PlatformResources),
    students: {
      ...(resources as unknown as PlatformResources).students,
      async issueSignInToken(student, target, opts) {
        // Parsed already (the launch's admission): sent as it is, read as strictly.
        const body = { ...student, classId: target.classId, ...(target.courseId ? { courseId: target.courseId } : {}) };
        const { data } = await record(signIn.answer, signIn.what, signIn.method, signIn.path, body, { ...opts, priority: opts?.priority ?? signIn.priority });
        return data.token;
      },
    },

    async request<T = unknown>(method: HttpMethod, path: string, body?: unknown, opts?: RequestOptions): Promise<WithMeta<T>> {
      const verb = typeof method === "string" ? method.toUpperCase() : "";
      const issues = requestPathIssues(path);
      if (!METHODS.includes(verb)) issues.unshift({ path: "method", message: `must be one of ${METHODS.join(", ")}` });
      if (issues.length > 0) {
        throw new PlatformInvalidRequestError(
          `Invalid request: ${issues.map((i) => `${i.path} ${i.message}`).join("; ")}. Nothing was sent.`, issues);
      }
      const result = await call(verb as HttpMethod, path, body, opts);
      return { data: result.data as T, meta: result.meta };
    },

    rateStats: () => budget.stats(),
    estimateWaitMs: (ahead) => budget.estimateWaitMs(ahead),
    pacingIntervalMs: (share) => budget.pacingIntervalMs(share),
    close: () => transport.close(),
  };
  attachCallObservers(client, observers);
  attachBudgetBinding(client, { given: settings.rateBudget, rebuild: (rateBudget) => createPlatformClient({ ...options, rateBudget }) });
  return client;

  function context(method: string, path: string, result: CallResult) {
    return { method, path, secrets: [settings.apiKey], status: result.status, requestId: result.requestId };
  }
}
