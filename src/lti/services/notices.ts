/**
 * LTI Platform Notification Service 1.0 (1EdTech, 2024), for course copies. An LMS that
 * offers it names its service in every launch (the `platformnotificationservice` claim:
 * a URL, versions, the notice types it sends); Canvas sends `LtiContextCopyNotice` when a
 * course's content is imported into another (a term rollover).
 *
 * - **Registration** (`ensureHandler`, after a verified launch carrying the claim with
 *   `LtiContextCopyNotice`): `PUT {platform_notification_service_url}` with
 *   `{ notice_type: "LtiContextCopyNotice", handler: "<tool>/lti/notices" }`, under a
 *   service token with the `noticehandlers` scope (service-access.ts: its token cache, the
 *   service-URL rules). Once per (registration, deployment, service URL) a day, fleet-wide:
 *   the mark is claimed in the fleet's single-use store before the call (atomically: one
 *   instance calls) and removed when the call fails (the next launch tries again).
 * - **Notices** (`POST /lti/notices`, `{ notices: [{ jwt }] }`, JSON): each JWT is
 *   verified like a launch (verify-launch.ts's header and signature checks): a registration
 *   found and active for its `iss` and `aud` (`azp` naming it when given), RS256 under a
 *   `kid` of the LMS's key set (an unknown `kid` refetches the set once per cooldown),
 *   `exp`/`iat` within the clock tolerance and `iat` at most an hour old, a known
 *   deployment, version 1.3.0, a notice id and type; its `nonce` (and `jti`, when sent)
 *   used once, claimed atomically in the fleet's single-use store. An `LtiContextCopyNotice` records, for the new course (its `context.id`),
 *   the course it came from (`origin_contexts`), in the store (schema version 12): the
 *   new course's learners then get a "waiting for your instructor" page until an
 *   instructor's launch there makes the choice (course-binding.ts, course-offer.ts).
 *   Other notice types are accepted and ignored. All accepted: 204. A refused one: its
 *   status (400, 401, 409 replayed) as application/problem+json naming the field
 *   (`notices[i].jwt`) and the check; the others of the post are still acted on.
 */
import express, { type Request, type RequestHandler, type Response } from "express";
import { decodeJwt, jwtVerify, type JWTPayload } from "jose";
import type { Logger } from "../../core/logger.js";
import { textOf } from "../../core/text.js";
import type { SingleUseStore } from "../../fleet/single-use.js";
import type { OralStoreLti } from "../../store/lti-types.js";
import { shortHash } from "../shared/browser-id.js";
import type { RegistrationSource } from "../lms/registration-source.js";
import type { Registration } from "../lms/registrations.js";
import type { RemoteKeySets } from "../lms/remote-keys.js";
import { LTI_SCOPES, ServiceAccessError, type ServiceAccess } from "../lms/service-access.js";
import type { LtiSettings } from "../settings/settings.js";
import { toolBase } from "../shared/tool-url.js";
import { readNoticeClaims, type NoticeClaims } from "../launch/typed-launch.js";
import { headerCheck, joseFailure, type FailedCheck, type VerifiedLaunch } from "../launch/verify-launch.js";

export const NOTICE_PATH = "/lti/notices";
export const COPY_NOTICE = "LtiContextCopyNotice";
/** How long a registered handler is not registered again, ms. */
const REGISTERED_MS = 24 * 3600_000;
/** A notice's oldest `iat` accepted, s (Canvas's notices live an hour). */
const NOTICE_MAX_AGE_SEC = 3600;
/** Notices read from one post. */
const MAX_NOTICES = 50;
const MAX_JWT = 65_536;

export interface NoticeDeps {
  settings: LtiSettings;
  source: RegistrationSource;
  keySets: RemoteKeySets;
  access: ServiceAccess;
  store: OralStoreLti;
  /** The fleet's single-use store: handler marks, and each notice's nonce and jti. */
  singleUse: SingleUseStore;
  logger: Logger;
}

interface Verified { registration: Registration; read: NoticeClaims; /** Its single-use marks, removed again when it could not be kept. */ marks: string[] }
type Refusal = FailedCheck | { check: string; status: 409; forAdministrator: string };

export type PlatformNotices = ReturnType<typeof platformNotices>;

export function platformNotices(deps: NoticeDeps) {
  const { settings, logger, singleUse } = deps;
  const toleranceSec = settings.clockToleranceMs / 1000;

  /** Registers the tool's copy-notice handler with the LMS, in the background, once a day per registration and service URL. */
  function ensureHandler(req: Request, launch: VerifiedLaunch): void {
    const pns = launch.services.notices;
    if (!pns || !pns.noticeTypes.includes(COPY_NOTICE) || (pns.versions.length > 0 && !pns.versions.includes("1.0"))) return;
    const handler = `${toolBase(req, settings.toolUrl)}${NOTICE_PATH}`;
    const reg = launch.registration;
    const mark = `lti-pns:${shortHash([reg.issuer, reg.clientId, launch.deploymentId, pns.url, handler].join("\u0000"))}`;
    void (async () => {
      if (!(await singleUse.claim(mark, "1", REGISTERED_MS))) return;
      try {
        await deps.access.call(reg, [LTI_SCOPES.noticeHandlers], {
          method: "PUT", url: pns.url, accept: "application/json", contentType: "application/json", body: { notice_type: COPY_NOTICE, handler },
        });
        logger.info({ event: "lti_notice_handler", outcome: "registered", iss: reg.issuer, deploymentId: launch.deploymentId }, "LTI copy-notice handler registered with the LMS");
      } catch (error) {
        await singleUse.take(mark).catch(() => undefined);
        const e = error instanceof ServiceAccessError ? error : undefined;
        logger.warn({ event: "lti_notice_handler", outcome: "failed", iss: reg.issuer, kind: e?.kind, status: e?.status, error: (error as Error)?.message },
          "LTI copy-notice handler not registered (the next launch tries again)");
      }
    })().catch((error: unknown) => logger.warn({ event: "lti_notice_handler", outcome: "failed", error: (error as Error)?.message }, "LTI copy-notice handler not registered"));
  }

  const refuse = (check: string, forAdministrator: string, status: Refusal["status"] = 401): { failed: Refusal } => ({ failed: { check, status, forAdministrator } as Refusal });

  /** The registration an unverified notice names: by `iss` and its audience (`azp` first). */
  async function registrationOf(payload: JWTPayload): Promise<Registration | undefined> {
    if (typeof payload.iss !== "string") return undefined;
    const auds = typeof payload.azp === "string" ? [payload.azp] : typeof payload.aud === "string" ? [payload.aud] : Array.isArray(payload.aud) ? payload.aud.slice(0, 5) : [];
    for (const aud of auds) {
      const found = await deps.source.find(payload.iss, aud);
      if ("found" in found && found.found.active) return found.found;
    }
    return undefined;
  }

  async function verify(jwt: string): Promise<{ notice: Verified } | { failed: Refusal }> {
    let unverified: JWTPayload;
    try {
      unverified = decodeJwt(jwt);
    } catch {
      return refuse("token", "The notice is not a well-formed signed JWT.", 400);
    }
    const reg = await registrationOf(unverified);
    if (!reg) return refuse("registration", "No active registration of this tool matches the notice's iss and aud (client id).");
    const header = headerCheck(jwt, reg);
    if (header) return { failed: header };
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(jwt, deps.keySets.of(reg.jwksUrl), {
        algorithms: ["RS256"], issuer: reg.issuer, audience: reg.clientId, requiredClaims: ["iat", "exp", "nonce"],
        clockTolerance: toleranceSec, maxTokenAge: NOTICE_MAX_AGE_SEC + toleranceSec,
      }));
    } catch (error) {
      return { failed: joseFailure(error, reg) };
    }
    if (payload.azp !== undefined && payload.azp !== reg.clientId) return refuse("azp", `The notice's azp is not this tool's client id ${reg.clientId}.`);
    const read = readNoticeClaims(payload as Record<string, unknown>);
    if (read.deploymentId === undefined || !reg.deployments.has(read.deploymentId)) {
      return refuse("deployment_id", `The notice's deployment id is not one this tool has seen launches from for client id ${reg.clientId}.`, 400);
    }
    if (read.version !== "1.3.0") return refuse("version", "The notice is not LTI 1.3.0.", 400);
    if (!read.id || !read.type) return refuse("notice", "The notice carries no notice claim with an id and a type.", 400);
    // Single use: the nonce, and the jti when sent, kept as long as the notice could verify.
    const keys = [read.nonce, read.jti].filter((v): v is string => v !== undefined).map((v) => `lti-notice:${shortHash(`${reg.issuer}\u0000${reg.clientId}\u0000${v}`)}`);
    const marks: string[] = [];
    for (const key of keys) {
      // Claimed atomically (fleet-wide with Redis): of two deliveries of one notice, one goes on.
      if (!(await singleUse.claim(key, "1", (NOTICE_MAX_AGE_SEC + 2 * toleranceSec) * 1000))) {
        for (const mark of marks) await singleUse.take(mark).catch(() => undefined);
        return refuse("replayed", "This notice's nonce (or jti) was used already: a replayed notice.", 409);
      }
      marks.push(key);
    }
    return { notice: { registration: reg, read, marks } };
  }

  /** What a verified notice changes: a copy notice marks its new course as copied. */
  async function act({ registration: reg, read }: Verified): Promise<Refusal | undefined> {
    if (read.type !== COPY_NOTICE) {
      logger.info({ event: "lti_notice", type: read.type, outcome: "ignored", iss: reg.issuer }, "LTI platform notice accepted, not acted on");
      return undefined;
    }
    if (!read.contextId) return { check: "context", status: 400, forAdministrator: "The copy notice names no context (the new course)." };
    const at = read.timestamp !== undefined && !Number.isNaN(Date.parse(read.timestamp)) ? new Date(read.timestamp).toISOString() : new Date().toISOString();
    const course = { issuer: reg.issuer, clientId: reg.clientId, deploymentId: read.deploymentId!, contextId: read.contextId };
    await deps.store.putLtiCourseCopyNotice(course, { originContextId: read.originContextId, noticeId: read.id!, noticedAt: at });
    logger.info({ event: "lti_notice", type: COPY_NOTICE, outcome: "course_copy", contextId: read.contextId, originContextId: read.originContextId, deploymentId: course.deploymentId },
      "LTI course copy notice: the new course's links wait for an instructor");
    return undefined;
  }

  /** `POST /lti/notices`: the LMS's notices (a JSON body). */
  async function route(req: Request, res: Response): Promise<void> {
    const notices = (req.body as { notices?: unknown } | undefined)?.notices;
    if (!Array.isArray(notices) || notices.length === 0 || notices.length > MAX_NOTICES) {
      return problem(res, { status: 400, check: "notices", field: "notices", detail: `The body must be JSON { "notices": [{ "jwt": "…" }] } with 1 to ${MAX_NOTICES} notices.` });
    }
    let first: (Refusal & { field: string }) | undefined;
    for (const [i, entry] of notices.entries()) {
      const field = `notices[${i}].jwt`;
      const jwt = textOf((entry as { jwt?: unknown } | null)?.jwt, MAX_JWT);
      const result = jwt === undefined ? refuse("jwt", `Each notice is { "jwt": "<signed JWT of at most ${MAX_JWT} characters>" }.`, 400) : await verify(jwt);
      let failed = "failed" in result ? result.failed : undefined;
      if ("notice" in result) {
        try {
          failed = await act(result.notice);
        } catch (error) {
          for (const mark of result.notice.marks) await singleUse.take(mark).catch(() => undefined);
          logger.error({ event: "lti_notice", outcome: "not_kept", error: (error as Error)?.message }, "an LTI platform notice could not be kept");
          return problem(res, { status: 503, check: "store", field, detail: "The notice could not be kept just now. Send it again later." });
        }
      }
      if (!failed) continue;
      logger.warn({ event: "lti_notice_refused", check: failed.check, status: failed.status, field }, `LTI platform notice refused: ${failed.check}`);
      first ??= { ...failed, field };
    }
    if (!first) return void res.status(204).end();
    problem(res, { status: first.status, check: first.check, field: first.field, detail: first.forAdministrator });
  }

  return { ensureHandler, route };
}

/** The notices' JSON body (up to 1 MiB); a body that is not JSON is a 400 problem naming it, not an HTML page. */
export function noticeBody(): RequestHandler {
  const json = express.json({ limit: "1mb", type: () => true });
  return (req, res, next) => json(req, res, (error?: unknown) => {
    if (error === undefined) return next();
    const tooLarge = (error as { type?: string })?.type === "entity.too.large";
    problem(res, { status: tooLarge ? 413 : 400, check: "body", field: "notices", detail: tooLarge ? "The notices' body is larger than 1 MiB." : "The body is not JSON: send { \"notices\": [{ \"jwt\": \"…\" }] }." });
  });
}

function problem(res: Response, p: { status: number; check: string; field: string; detail: string }): void {
  res.status(p.status).setHeader("Content-Type", "application/problem+json; charset=utf-8");
  res.setHeader("Cache-Control", "no-store");
  res.end(JSON.stringify({
    type: `urn:express-oral-assessments:problem:lti_notice_${p.check}`, title: "The notice was not accepted", status: p.status,
    detail: p.detail, code: `lti_notice_${p.check}`, errors: [{ path: p.field, message: p.detail }],
  }));
}
