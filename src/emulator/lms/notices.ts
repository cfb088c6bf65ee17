/**
 * The LMS emulator's Platform Notification Service (LTI PNS 1.0), as Canvas serves it (its
 * "Platform Notification Service" guide): a preset that offers it (`notices`) names the
 * service in every launch (the `platformnotificationservice` claim: its URL, version 1.0,
 * the `noticehandlers` scope, the notice types it sends); the tool registers a handler per
 * notice type with `PUT` to that URL under a bearer token with that scope (`GET` lists
 * them; one handler per type, `""` removes it, the handler's host must be the tool's);
 * and `copyCourse` (also `POST /control/copy-course`, JSON `{ from?, to, title? }`) sends
 * the registered `LtiContextCopyNotice` handler a notice for the new course, as Canvas
 * does when a course's content is imported into another: `{ notices: [{ jwt }] }`, the
 * JWT signed like a launch (the LMS's key and `kid`, `aud` and `azp` the client id,
 * `exp` an hour after `iat`, a fresh `nonce`), with the new course as `context` and the
 * source as `origin_contexts`. A `fault` signs it with a key outside the key set, under
 * an unknown `kid` or under the set's own (a bad signature).
 */
import { randomUUID } from "node:crypto";
import express, { type Request, type Response } from "express";
import { SignJWT } from "jose";
import type { LmsKey } from "./mint.js";

export const NOTICE_SCOPE = "https://purl.imsglobal.org/spec/lti/scope/noticehandlers";
export const NOTICE_TYPES = ["LtiHelloWorldNotice", "LtiContextCopyNotice"] as const;
const L = "https://purl.imsglobal.org/spec/lti/claim/";

export interface CopyCourseInput {
  /** The course copied; default the emulator's course (its `context.id` in this preset's launches). */
  from?: string;
  /** The new course's `context.id`. */
  to: string;
  title?: string;
  /** A bad notice: signed by a key outside the key set, under an unknown kid, or under the set's kid (its signature fails). */
  fault?: "unknown_kid" | "bad_signature";
}

/** What the tool's handler answered to a notice the emulator sent. */
export interface NoticeSent {
  status: number;
  /** Its answer's body, as text. */
  answer: string;
  noticeId: string;
  /** The notice JWT sent (a test may post it again: a replay). */
  jwt: string;
}

interface NoticeContext {
  base(): string;
  issuer(): string;
  clientId(): string;
  deploymentId: string;
  /** The emulator's course id as its preset's launches name it. */
  courseId: string;
  toolOrigin(): string | undefined;
  key(): LmsKey;
  stranger(): Promise<LmsKey>;
  verifyBearer(req: Request, res: Response, scope: string): boolean;
}

export function noticeSide(ctx: NoticeContext) {
  const handlers = new Map<string, string>();
  const counts = { registrations: 0, refused: 0, sent: 0 };
  // Canvas's URL names the deployment's tool (its `189` of `189:hash`).
  const path = `/api/lti/notice-handlers/${encodeURIComponent(ctx.deploymentId.split(":")[0]!)}`;
  const catalog = () => ({
    client_id: ctx.clientId(), deployment_id: ctx.deploymentId,
    notice_handlers: NOTICE_TYPES.map((t) => ({ notice_type: t, handler: handlers.get(t) ?? "" })),
  });
  const router = express.Router();
  router.get(path, (req, res) => {
    if (ctx.verifyBearer(req, res, NOTICE_SCOPE)) res.json(catalog());
  });
  router.put(path, express.json({ limit: "16kb" }), (req, res) => {
    if (!ctx.verifyBearer(req, res, NOTICE_SCOPE)) return;
    const { notice_type: type, handler } = (req.body ?? {}) as Record<string, unknown>;
    const tool = ctx.toolOrigin();
    const problem = !NOTICE_TYPES.includes(type as (typeof NOTICE_TYPES)[number]) ? `notice_type must be one of ${NOTICE_TYPES.join(", ")}`
      : typeof handler !== "string" ? "handler must be a URL, or \"\" to remove it"
        : handler !== "" && (!URL.canParse(handler) || !tool || new URL(handler).hostname !== new URL(tool).hostname) ? "the handler's domain must match the tool's" : undefined;
    if (problem) {
      counts.refused += 1;
      return void res.status(400).json({ errors: [{ message: problem }] });
    }
    counts.registrations += 1;
    if (handler === "") handlers.delete(type as string);
    else handlers.set(type as string, handler as string);
    res.json({ notice_type: type, handler });
  });

  async function copyCourse(input: CopyCourseInput): Promise<NoticeSent> {
    const handler = handlers.get("LtiContextCopyNotice");
    if (!handler) throw new Error("no LtiContextCopyNotice handler is registered: a tool registers one after a launch carrying the platformnotificationservice claim");
    const noticeId = randomUUID();
    const now = Math.floor(Date.now() / 1000);
    const key = input.fault ? await ctx.stranger() : ctx.key();
    const kid = input.fault === "bad_signature" ? ctx.key().kid : key.kid;
    const jwt = await new SignJWT({
      [`${L}version`]: "1.3.0",
      [`${L}notice`]: { id: noticeId, timestamp: new Date(now * 1000).toISOString(), type: "LtiContextCopyNotice" },
      azp: ctx.clientId(),
      [`${L}deployment_id`]: ctx.deploymentId,
      nonce: randomUUID(),
      [`${L}context`]: { id: input.to, label: input.to, title: input.title ?? input.to, type: ["http://purl.imsglobal.org/vocab/lis/v2/course#CourseOffering"] },
      [`${L}origin_contexts`]: [input.from ?? ctx.courseId],
    }).setProtectedHeader({ alg: "RS256", typ: "JWT", kid }).setIssuer(ctx.issuer()).setAudience(ctx.clientId())
      .setIssuedAt(now).setExpirationTime(now + 3600).sign(key.privateKey);
    const answer = await fetch(handler, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ notices: [{ jwt }] }), redirect: "manual" });
    counts.sent += 1;
    return { status: answer.status, answer: await answer.text(), noticeId, jwt };
  }

  router.post("/control/copy-course", express.json({ limit: "4kb" }), (req, res) => {
    const { from, to, title } = (req.body ?? {}) as Record<string, unknown>;
    const text = (v: unknown) => typeof v === "string" && v.length > 0 && v.length <= 255;
    if (!text(to) || (from !== undefined && !text(from)) || (title !== undefined && !text(title))) {
      return void res.status(400).json({ error: "send JSON { to, from?, title? }: course ids of 1-255 characters" });
    }
    copyCourse({ to: to as string, ...(from ? { from: from as string } : {}), ...(title ? { title: title as string } : {}) })
      .then((sent) => res.json({ noticeId: sent.noticeId, handlerStatus: sent.status }), (error: unknown) => res.status(409).json({ error: (error as Error).message }));
  });

  return {
    router, copyCourse, counts,
    /** The claim a launch carries. */
    claim: () => ({ service_versions: ["1.0"], platform_notification_service_url: `${ctx.base()}${path}`, scope: [NOTICE_SCOPE], notice_types_supported: [...NOTICE_TYPES] }),
    /** The registered handlers by notice type. */
    get handlers(): ReadonlyMap<string, string> { return handlers; },
  };
}
