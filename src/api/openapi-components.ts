/**
 * The reusable parts of the OpenAPI document (`components`): request and record schemas
 * converted from the shared zod schemas, and the problem+json error schema.
 *
 * Request bodies are converted with `io: "input"` (what a caller may send: defaults
 * optional, transforms not applied yet), response records with `io: "output"`.
 * JSON Schema cannot say everything a zod refinement says; where a refinement matters to
 * a caller it is restated here by hand (and test/openapi-bodies.test.ts checks the two agree).
 */
import { z } from "zod";
import { RecordId } from "../platform/schemas.js";
import * as publicSchemas from "../platform/public-schemas.js";
import { PrepareRequest } from "./prepare-request.js";
import { launchRecordSchema } from "../store/launch-fields.js";
import { requestExtras } from "./openapi-request-extras.js";
import { ScoresRequest } from "./scores-request.js";

export type JsonSchema = Record<string, unknown>;

/** The accepted shapes of a point in time, once sent as JSON (a `Date` cannot be). */
const DATE_OR_DATE_TIME: JsonSchema = {
  anyOf: [
    { type: "string", format: "date" },
    { type: "string", format: "date-time" },
  ],
  description:
    "An ISO 8601 date (`2026-09-01`, read as UTC midnight) or date-time with a zone " +
    "(`2026-09-01T09:00:00Z`). Sent upstream as ISO 8601 UTC with milliseconds.",
  examples: ["2026-09-01", "2026-09-01T09:00:00.000Z"],
};

function isDateUnion(schema: z.core.$ZodType): boolean {
  const def = schema._zod.def as { type: string; options?: z.core.$ZodType[] };
  return def.type === "union" && (def.options ?? []).some((o) => o._zod.def.type === "date");
}

/** zod → JSON Schema (2020-12, the dialect of OpenAPI 3.1), without the `$schema` key. */
function toSchema(schema: z.ZodType, io: "input" | "output"): JsonSchema {
  const json = z.toJSONSchema(schema, {
    io,
    target: "draft-2020-12",
    // `z.date()` has no JSON form; the union holding it is replaced just below.
    unrepresentable: "any",
    override: (ctx) => {
      const json = ctx.jsonSchema as JsonSchema;
      if (isDateUnion(ctx.zodSchema)) {
        for (const key of Object.keys(json)) delete json[key];
        Object.assign(json, structuredClone(DATE_OR_DATE_TIME));
      } else if (ctx.zodSchema === RecordId) {
        json.description = "A platform record `_id`: no control characters, and not `.` or `..`.";
      } else if (io === "input" && isTrimmedNonEmpty(ctx.zodSchema, json)) {
        json.pattern = "\\S";
      }
    },
  }) as JsonSchema;
  delete json.$schema;
  return json;
}

/**
 * Non-empty text is trimmed before its length is checked (`z.string().trim().min(1)`), so
 * whitespace alone is refused: JSON Schema says that with a pattern.
 */
function isTrimmedNonEmpty(schema: z.core.$ZodType, json: JsonSchema): boolean {
  const def = schema._zod.def as { type: string; checks?: { _zod: { def: { check?: string } } }[] };
  const trims = (def.checks ?? []).some((c) => c._zod.def.check === "overwrite");
  return def.type === "string" && trims && typeof json.minLength === "number" && json.minLength > 0;
}

function requestSchema(schema: z.ZodType, extra: JsonSchema = {}): JsonSchema {
  return { ...toSchema(schema, "input"), ...extra };
}

/**
 * The component name of a platform schema: its name in the package's `schemas`
 * namespace, so the document and the code call a schema the same.
 */
export function schemaName(schema: z.ZodType): string {
  const found = Object.entries(publicSchemas).find(([, value]) => value === schema);
  if (!found) throw new Error("A route's schema is not in the public schemas namespace (platform/public-schemas.ts).");
  return found[0];
}

/** The platform schemas the routes send and get back, by component name. */
export interface RouteSchemas {
  requests: Map<string, z.ZodType>;
  records: Map<string, z.ZodType>;
}

export function buildComponents({ requests, records }: RouteSchemas): JsonSchema {
  const extras = requestExtras();
  const prepareRequest = requestSchema(PrepareRequest, {
    description:
      "When the exam starts, and the students to pre-warm sign-in tokens for (at most `prepare.maxRoster`, default " +
      "5 000). `roster` may be left out when the router has a `roster` option. `startAt` must not be over " +
      "(start + `prepare.keepAfterStartMs`) nor more than 7 days ahead.",
    examples: [{ startAt: "2026-09-01T09:00:00Z", roster: [{ email: "ada@school.example", firstName: "Ada", lastName: "Lovelace", orgInternalId: "u-1815" }] }],
  });
  const count = (description: string) => ({ type: "integer", minimum: 0, description });
  const instant = { type: "string", format: "date-time" };
  return {
    schemas: {
      ...Object.fromEntries([...requests].map(([name, schema]) => [name, requestSchema(schema, extras[name] ?? {})])),
      ...Object.fromEntries([...records].map(([name, schema]) => [name, toSchema(schema, "output")])),
      PrepareRequest: prepareRequest,
      ScoresRequest: requestSchema(ScoresRequest, {
        description: "A grade for a learner who opened the exam from an LMS (`studentId`: the launch record's `student.orgInternalId`), or `scores`: several (at most 1 000; `student`, their `orgInternalId` or e-mail, is an alias of `studentId`). `scoreGiven` must not exceed `scoreMaximum`; `gradingProgress: FullyGraded` needs a `scoreGiven`.",
        examples: [
          { studentId: "u-1815", scoreGiven: 17, scoreMaximum: 20, comment: "Clear and well argued." },
          { scores: [{ student: "sam@school.example", scoreGiven: 17, scoreMaximum: 20, comment: "Clear and well argued." }] },
        ],
      }),
      ScoresQueued: {
        type: "object", required: ["student", "queued"],
        properties: { student: { type: "string" }, queued: count("Scores queued: one per LMS course the student launched the exam from.") },
      },
      PrepareProgress: {
        type: "object",
        description: "A pre-warming plan's progress. Never contains a token.",
        required: ["examId", "classId", "startAt", "issueFrom", "keepUntil", "state", "roster", "ready", "expiring", "pending", "failed", "handedOut", "onDemand", "expired", "platformCalls", "failures"],
        properties: {
          examId: { type: "string" },
          classId: { type: "string" },
          startAt: instant,
          issueFrom: { ...instant, description: "When issuing begins (startAt − lead)." },
          keepUntil: { ...instant, description: "Until when unused tokens are refreshed (startAt + keepAfterStartMs)." },
          state: { enum: ["scheduled", "issuing", "ready", "finished"] },
          roster: count("Students in the plan (duplicates counted once)."),
          ready: count("Students holding a usable token now."),
          expiring: count("Of `ready`, tokens whose usable life ends within the next 60 s (refreshed before keepUntil; stale unused after it)."),
          pending: count("Students whose token is not issued yet or is being refreshed."),
          failed: count("Students the platform refused; they launch on demand."),
          handedOut: count("Prepared tokens given to their students."),
          onDemand: count("Students who launched while no usable token was ready."),
          expired: count("Tokens that went stale unused after keepUntil."),
          platformCalls: count("Sign-in token requests the plan sent."),
          failures: {
            type: "array",
            items: { type: "object", required: ["orgInternalId", "code", "message"], properties: { orgInternalId: { type: "string" }, code: { type: "string" }, message: { type: "string" } } },
          },
        },
      },
      LaunchRecord: launchRecordSchema(),
      LiveSnapshot: {
        type: "object",
        description: "Where an exam stands now. Students are counted once each, by their latest launch outcome.",
        required: ["launched", "waiting", "refused", "failed", "prepared", "budget"],
        properties: {
          launched: count("Students whose latest launch reached the exam."),
          waiting: count("Students on the waiting page."),
          refused: count("Students refused: by `canLaunch`, over their fair share, or in a failure backoff."),
          failed: count("Students whose latest launch failed on the platform's side (or found the class full)."),
          prepared: {
            type: "object", required: ["ready", "planned", "expiring", "expired"],
            properties: {
              ready: count("Pre-warmed tokens usable now."),
              planned: count("Students in the plan."),
              expiring: count("Of `ready`, tokens whose usable life ends within the next 60 s: before the plan's keepUntil the pre-warmer refreshes them, so a count that stays above zero means refreshing is behind; after it they go stale unused."),
              expired: count("Tokens that went stale unused."),
            },
          },
          budget: {
            type: "object", required: ["used", "limit", "windowMs", "platform429", "platformErrors"],
            properties: {
              used: count("Calls sent in the key's current rate window."),
              limit: count("Calls the key may send per window."),
              windowMs: count("The key's rate window, ms (`limit` per `windowMs`: a chart's budget line per minute is limit × 60000 / windowMs)."),
              platform429: count("Requests on the organization's key the platform answered 429, last 5 minutes, fleet-wide."),
              platformErrors: count("Requests on the organization's key the platform answered 5xx or not at all (timeout, reset), last 5 minutes, fleet-wide."),
            },
          },
        },
      },
      Meta: {
        type: "object",
        properties: {
          requestId: { type: "string", description: "The platform's request id, for support requests." },
          nextCursor: { type: ["string", "null"], description: "Launch record lists: the `cursor` of the next page; null on the last." },
        },
        additionalProperties: {},
      },
      Problem: {
        type: "object",
        description: "RFC 9457 problem details, plus a stable `code` and, for invalid input, one entry per field.",
        required: ["type", "title", "status", "detail", "code"],
        properties: {
          type: { type: "string", format: "uri-reference", examples: ["urn:express-oral-assessments:problem:validation_error"] },
          title: { type: "string" },
          status: { type: "integer", minimum: 400, maximum: 599 },
          detail: { type: "string" },
          code: {
            type: "string",
            description:
              "Stable and machine-readable: `validation_error`, `malformed_json`, `unauthenticated`, `forbidden`, " +
              "`cross_site_request`, `not_found`, `conflict`, `body_too_large`, `unsupported_media_type`, " +
              "`upstream_unauthorized`, `upstream_rate_limited`, `upstream_timeout`, `upstream_error`, " +
              "`not_prepared`, `idempotency_key_reused`, `idempotency_in_progress`, `internal_error`, or a code the platform sent.",
          },
          errors: {
            type: "array",
            description: "Invalid input: one entry per field. `path` is dotted (`questions.0.text`), `(body)` for the whole body.",
            items: {
              type: "object",
              required: ["path", "message"],
              properties: { path: { type: "string" }, message: { type: "string" } },
            },
          },
          requestId: { type: "string", description: "The platform's request id, when the failure came from the platform." },
        },
      },
    },
    parameters: {
      courseId: idParameter("courseId", "The course's platform `_id`."),
      classId: idParameter("classId", "The class's platform `_id`."),
      examId: {
        name: "examId",
        in: "path",
        required: true,
        description: "The oral assessment's platform `_id`.",
        schema: { type: "string", pattern: "^[A-Za-z0-9_-]{1,128}$" },
      },
      roleplayId: {
        name: "roleplayId",
        in: "path",
        required: true,
        description: "The role-play's platform `_id`.",
        schema: { type: "string", pattern: "^[A-Za-z0-9_-]{1,128}$" },
      },
      IdempotencyKey: {
        name: "Idempotency-Key",
        in: "header",
        required: false,
        description:
          "Makes a retry safe: the first answer (2xx or 4xx) is recorded for 24 h per user and key, and a retry with the " +
          "same key and request replays it (`Idempotent-Replayed: true`) with no second platform call; the same key with " +
          "another request is a 422. 1–255 printable ASCII characters without spaces, e.g. a UUID.",
        schema: { type: "string", pattern: "^[\\x21-\\x7e]{1,255}$", examples: ["3f0b9a52-4a1e-4c3e-9a51-5f2e7d1c0b6e"] },
      },
    },
    securitySchemes: {
      session: {
        type: "apiKey",
        in: "cookie",
        name: "connect.sid",
        description:
          "The host application's session (e.g. passport with express-session). The cookie name is the host " +
          "application's; instructor routes also need `isInstructor(req)` to say yes.",
      },
    },
  };
}

function idParameter(name: string, description: string): JsonSchema {
  return {
    name,
    in: "path",
    required: true,
    description,
    schema: { type: "string", minLength: 1, maxLength: 200 },
  };
}
