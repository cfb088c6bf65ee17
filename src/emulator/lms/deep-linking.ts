/**
 * The LMS emulator's Deep Linking 2.0 side: an instructor's deep-linking request (its
 * `deep_linking_settings`, kept under an id the login carries as `lti_message_hint`), and
 * the return endpoint (`POST /deep-link-return`, form field `JWT`) that verifies the
 * tool's response as a platform must (Security Framework §5.2): RS256 by a key of the
 * tool's own `jwks.json` (fetched, cached), `iss` = the client id, `aud` = this LMS, a
 * nonce, the deployment, `message_type` and `version`, `data` echoed unaltered, and items
 * the request accepted. Each `ltiResourceLink` becomes a resource link of the course.
 */
import { randomUUID } from "node:crypto";
import type { RequestHandler } from "express";
import { createRemoteJWKSet, jwtVerify } from "jose";

/** A verified JWT's claims. Not jose's type: these declarations are public, and jose is ESM only. */
type JWTPayload = { [claim: string]: unknown; iss?: string; sub?: string; aud?: string | string[]; exp?: number; iat?: number };
import type { ResourceLink } from "./mint.js";
import { escapeHtml } from "../../core/html.js";

const L = "https://purl.imsglobal.org/spec/lti/claim/";
const DL = "https://purl.imsglobal.org/spec/lti-dl/claim/";

/** A content item's `lineItem`, when it has the fields a line item needs. */
function lineItemOf(v: unknown): ResourceLink["lineItem"] {
  const o = (typeof v === "object" && v !== null ? v : {}) as Record<string, unknown>;
  if (typeof o.label !== "string" || typeof o.scoreMaximum !== "number") return undefined;
  return { label: o.label, scoreMaximum: o.scoreMaximum, ...(typeof o.resourceId === "string" ? { resourceId: o.resourceId } : {}), ...(typeof o.tag === "string" ? { tag: o.tag } : {}) };
}

export interface DeepLinkingRequestOptions {
  /** `accept_types`. Default `["ltiResourceLink"]`. */
  acceptTypes?: string[];
  /** `accept_presentation_document_targets`. Default `["iframe", "window"]`. */
  targets?: string[];
  /** `accept_multiple`. Default false. */
  acceptMultiple?: boolean;
  /** `data`. Default an opaque id of the request. */
  data?: string;
}

/** What the return endpoint received: the verified claims and the links it added, or why it refused. */
export type DeepLinkReturn =
  | { ok: true; claims: JWTPayload & Record<string, unknown>; links: ResourceLink[] }
  | { ok: false; error: string };

export interface DeepLinkingSide {
  /** A new request's id (the login's `lti_message_hint`). */
  open(options: DeepLinkingRequestOptions): string;
  /** The `deep_linking_settings` claim of request `id`, or undefined. */
  settingsOf(id: string): Record<string, unknown> | undefined;
  readonly returns: DeepLinkReturn[];
  returnRoute: RequestHandler;
}

export function deepLinkingSide(ctx: {
  base: () => string; clientId: string; deploymentId: string; toolRoot: () => string | undefined;
  /** The LMS's issuer, the response's `aud` (a preset's fixed issuer, or the LMS's URL). Default `base()`. */
  issuer?: () => string;
  addLink: (link: Omit<ResourceLink, "id">) => ResourceLink;
  /** Whether a content item's `lineItem` makes a grade item (Brightspace makes none for 1.3 links). */
  acceptsLineItems: boolean;
  /** The course page of a link for a user (the return page links each placed exam as a student sees it). */
  coursePage: (userId: string, linkId: string) => string;
}): DeepLinkingSide {
  const requests = new Map<string, Record<string, unknown>>();
  const returns: DeepLinkReturn[] = [];
  let keySet: { url: string; get: ReturnType<typeof createRemoteJWKSet> } | undefined;
  const toolKeys = () => {
    const url = `${ctx.toolRoot()}/lti/jwks.json`;
    if (keySet?.url !== url) keySet = { url, get: createRemoteJWKSet(new URL(url)) };
    return keySet.get;
  };

  async function verify(jwt: string): Promise<DeepLinkReturn> {
    if (!ctx.toolRoot()) return { ok: false, error: "no tool registered" };
    let claims: JWTPayload & Record<string, unknown>;
    try {
      ({ payload: claims } = await jwtVerify(jwt, toolKeys(), { algorithms: ["RS256"], issuer: ctx.clientId, audience: (ctx.issuer ?? ctx.base)(), requiredClaims: ["iat", "exp", "nonce"] }) as { payload: JWTPayload & Record<string, unknown> });
    } catch (error) {
      return { ok: false, error: `the JWT does not verify: ${(error as Error).message}` };
    }
    const problems: string[] = [];
    if (claims[`${L}deployment_id`] !== ctx.deploymentId) problems.push("deployment_id is not this deployment");
    if (claims[`${L}message_type`] !== "LtiDeepLinkingResponse") problems.push("message_type must be LtiDeepLinkingResponse");
    if (claims[`${L}version`] !== "1.3.0") problems.push("version must be 1.3.0");
    const entry = [...requests.entries()].find(([, s]) => s.data === claims[`${DL}data`]);
    if (!entry) problems.push("data is not the data of an open deep-linking request");
    const items = claims[`${DL}content_items`];
    if (!Array.isArray(items)) problems.push("content_items must be an array");
    const settings = entry?.[1];
    if (settings && Array.isArray(items)) {
      if (settings.accept_multiple !== true && items.length > 1) problems.push("several content items, and accept_multiple is false");
      for (const item of items as { type?: unknown }[]) if (!(settings.accept_types as unknown[]).includes(item?.type)) problems.push(`content item type ${String(item?.type)} was not accepted`);
    }
    if (problems.length > 0) return { ok: false, error: problems.join("; ") };
    requests.delete(entry![0]);
    const links = (items as Record<string, unknown>[]).filter((i) => i.type === "ltiResourceLink").map((i) => ctx.addLink({
      title: String(i.title ?? "Untitled"),
      custom: Object.fromEntries(Object.entries((i.custom ?? {}) as Record<string, unknown>).map(([k, v]) => [k, String(v)])),
      documentTarget: i.window !== undefined ? "window" : "iframe",
      ...(ctx.acceptsLineItems && lineItemOf(i.lineItem) ? { lineItem: lineItemOf(i.lineItem) } : {}),
    }));
    return { ok: true, claims, links };
  }

  return {
    open(options) {
      const id = `dl-${randomUUID().slice(0, 8)}`;
      requests.set(id, {
        deep_link_return_url: `${ctx.base()}/deep-link-return`,
        accept_types: options.acceptTypes ?? ["ltiResourceLink"],
        accept_presentation_document_targets: options.targets ?? ["iframe", "window"],
        accept_multiple: options.acceptMultiple ?? false,
        accept_lineitem: ctx.acceptsLineItems,
        title: "Add an oral exam",
        data: options.data ?? `request-${id}`,
      });
      return id;
    },
    settingsOf: (id) => requests.get(id),
    returns,
    returnRoute: (req, res) => {
      const jwt = (req.body as Record<string, unknown> | undefined)?.JWT;
      void (typeof jwt === "string" ? verify(jwt) : Promise.resolve<DeepLinkReturn>({ ok: false, error: "no JWT field" })).then((result) => {
        returns.push(result);
        res.setHeader("Cache-Control", "no-store");
        if (!result.ok) return void res.status(400).type("text/plain").send(`deep-linking response refused: ${result.error}`);
        res.type("html").send(`<!doctype html><title>Added</title><h1>Added to the course</h1><ul>${result.links.map((l) => `<li id="${l.id}"><a href="${ctx.coursePage("student-1", l.id)}" target="_top">${escapeHtml(l.title)}</a> (open as a student)</li>`).join("")}</ul><p><a id="course" href="${ctx.base()}/course?user=student-1" target="_top">The course, as a student</a></p>`);
      });
    },
  };
}
