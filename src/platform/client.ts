/**
 * `createPlatformClient`: the typed client, composed of one module per resource
 * (`resources/*.ts`). Each resource method checks its ids and body
 * with the shared schemas *before* anything is sent (every issue at once, in a
 * `PlatformInvalidRequestError`), sends the normalised body (defaults filled, dates in
 * UTC with milliseconds, unknown fields untouched), and reads the answer, enveloped or
 * bare, against the record schema. Everything else (auth, budget, retries, errors) is
 * the shared call pipeline in `call.ts`.
 */
import { z } from "zod";
import { redactKey } from "../core/redact.js";
import { createCaller, type CallResult } from "./call.js";
import { PlatformInvalidRequestError } from "./errors.js";
import { resolveOptions } from "./options.js";
import { idIssues, requestPathIssues, type Issue } from "./paths.js";
import { createRateBudget } from "./rate-budget.js";
import { readRecord } from "./responses.js";
import type { HttpMethod } from "./retry.js";
import { classesResource } from "./resources/classes.js";
import { coursesResource } from "./resources/courses.js";
import { oralAssessmentsResource, roleplaysResource } from "./resources/exams.js";
import type { ResourceKit } from "./resources/kit.js";
import { SignInToken, SignInTokenRequest, issuesOf } from "./schemas.js";
import { createTransport } from "./transport.js";
import { keyHash } from "./key-hash.js";
import type { PlatformClient, PlatformClientOptions, RequestOptions, WithMeta } from "./types.js";

const USER_AGENT = "express-oral-assessments";
const METHODS: readonly string[] = ["GET", "POST", "PUT", "PATCH", "DELETE"];

export function createPlatformClient(options: PlatformClientOptions): PlatformClient {
  const settings = resolveOptions(options);
  const transport = createTransport({ apiKey: settings.apiKey, maxSockets: settings.maxConcurrency, userAgent: USER_AGENT });
  // A shared budget keys its window by a hash of the key (never the key itself).
  const shared = settings.rateBudget;
  const budget = shared ? (shared.forKey?.(keyHash(settings.apiKey)) ?? shared) : createRateBudget({
    limit: settings.rateLimitPerMinute,
    windowMs: settings.rateWindowMs,
    maxConcurrency: settings.maxConcurrency,
  });
  const call = createCaller(settings, transport, budget);
  const log = settings.logger;

  /** Checks ids and body together, so one error lists every problem; returns the normalised body. */
  function checked<S extends z.ZodType | undefined>(
    what: string, method: string, ids: Record<string, unknown>, schema: S, body?: unknown,
  ): S extends z.ZodType ? z.output<S> : undefined {
    const issues: Issue[] = Object.entries(ids).flatMap(([name, id]) => idIssues(name, id));
    let output: unknown;
    if (schema !== undefined) {
      const parsed = schema.safeParse(body);
      if (parsed.success) output = parsed.data;
      else issues.push(...issuesOf(parsed.error));
    }
    if (issues.length > 0) {
      log.debug({ method, what, issues: issues.map((i) => i.path) }, "platform call refused locally");
      throw new PlatformInvalidRequestError(
        `Invalid ${what}: ${issues.map((i) => `${i.path} ${i.message}`).join("; ")}. Nothing was sent.`, issues);
    }
    return output as S extends z.ZodType ? z.output<S> : undefined;
  }

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
  const kit: ResourceKit = { checked, record, remove };

  // Every method is async, so a local refusal is a rejected promise like any other failure.
  const client: PlatformClient = {
    env: settings.env,
    platformOrigin: settings.platformOrigin,
    redactedKey: redactKey(settings.apiKey),

    courses: coursesResource(kit),
    classes: classesResource(kit),
    oralAssessments: oralAssessmentsResource(kit),
    roleplays: roleplaysResource(kit),
    students: {
      async createSignInToken(body, opts) {
        const payload = checked("sign-in token request", "POST", {}, SignInTokenRequest, body);
        // A sign-in token is asked for while a student waits at the launch page, so it goes
        // ahead of instructor traffic unless the caller says otherwise.
        return record(SignInToken, "a sign-in token", "POST", "/students/sign-in-token", payload,
          { ...opts, priority: opts?.priority ?? "launch" });
      },
      async issueSignInToken(student, target, opts) {
        const body = { ...student, classId: target.classId, ...(target.courseId ? { courseId: target.courseId } : {}) };
        const { data } = await record(SignInToken, "a sign-in token", "POST", "/students/sign-in-token", body,
          { ...opts, priority: opts?.priority ?? "launch" });
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
  return client;

  function context(method: string, path: string, result: CallResult) {
    return { method, path, secrets: [settings.apiKey], status: result.status, requestId: result.requestId };
  }
}
