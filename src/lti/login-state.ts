/**
 * A login's state, kept server-side (the fleet's single-use store, so any instance can
 * finish a launch) under the state's id, until the launch takes it, once. It holds only
 * what the launch checks, each field bounded, about 300 bytes and at most about 550 (a
 * 255-character deployment id): the nonce sent with it, the registration it was made for,
 * the login's deployment id, a hash of the browser id (browser-id.ts: the cookie's value,
 * and the Platform Storage value, which the launch must present to prove it reached the
 * browser that logged in, the login CSRF defence), the Platform Storage frame if the login
 * offered one, and a hash of the state's re-login part.
 *
 * The re-login part: what the "open in a new window" fallback needs to start the login
 * again (`login_hint`, `lti_message_hint`) rides in the `state` parameter itself
 * (`<id>.<base64url JSON>`), which the LMS sends back with the launch, instead of in the
 * store: only when the login offered no Platform Storage (the only case that falls back),
 * and only when it is short (`RELOGIN_MAX_CHARS`), so the LMS's authorization URL stays
 * short. The state records its hash, so the launch's page never links to anything but
 * what this login was given.
 *
 * An unlaunched state waits `waitMs`: `min(stateTtlMs, 300 s)` (an LMS answers a login
 * within seconds; an abandoned login need not hold memory for `stateTtlMs`). A launched
 * state is gone. `stateTtlMs` still bounds the id_token's age.
 */
import type { SingleUseStore } from "../fleet/single-use.js";
import { shortHash } from "./browser-id.js";

export interface LoginState {
  nonce: string;
  issuer: string;
  clientId: string;
  /** The login's `lti_deployment_id`, if it sent one (at most 255 characters): the launch's claim must equal it. */
  deploymentId: string | undefined;
  /** `shortHash` of the browser id the login gave the cookie and Platform Storage. */
  browserHash: string;
  /** Where the LMS keeps Platform Storage (`lti_storage_target`), if the login offered it. */
  storageTarget: string | undefined;
  /** The hash of the state's re-login part, if it has one. */
  reloginHash: string | undefined;
}

/** The parameters a new window's login starts again with (the rest is in the state). */
export interface Relogin {
  loginHint: string;
  messageHint: string | undefined;
}

/** The longest re-login part carried in `state` (JSON characters; about 1.3 times as many in base64url). */
export const RELOGIN_MAX_CHARS = 1536;
/** The longest a state waits for its launch. */
export const MAX_STATE_WAIT_MS = 300_000;
/** A Platform Storage check page's continuation lives this long (a `lti.get_data` times out in 3 s). */
const CONTINUATION_TTL_MS = 60_000;

const stateKey = (id: string) => `lti-state:${id}`;
const continueKey = (id: string) => `lti-continue:${id}`;
const STATE_ID = /^[\w-]{32}$/;
const VERSION = 2;

/** The `state` parameter sent to the LMS: the id, and the re-login part when there is one. */
export function stateParam(id: string, relogin: Relogin | undefined): { state: string; reloginHash: string | undefined } {
  if (relogin === undefined) return { state: id, reloginHash: undefined };
  const json = JSON.stringify(relogin.messageHint === undefined ? [relogin.loginHint] : [relogin.loginHint, relogin.messageHint]);
  if (json.length > RELOGIN_MAX_CHARS) return { state: id, reloginHash: undefined };
  const part = Buffer.from(json, "utf8").toString("base64url");
  return { state: `${id}.${part}`, reloginHash: shortHash(part) };
}

/** A posted `state` read back: its id, and its re-login part (hash checked against the state by `boundRelogin`). */
export function readStateParam(state: string): { id: string; part: string | undefined } | undefined {
  const dot = state.indexOf(".");
  const id = dot < 0 ? state : state.slice(0, dot);
  return STATE_ID.test(id) ? { id, part: dot < 0 ? undefined : state.slice(dot + 1) } : undefined;
}

/** The re-login parameters of a posted state part, if they are the ones this login recorded. */
export function boundRelogin(known: LoginState, part: string | undefined): Relogin | undefined {
  if (part === undefined || !samePart(known, part)) return undefined;
  try {
    const [loginHint, messageHint] = JSON.parse(Buffer.from(part, "base64url").toString("utf8")) as unknown[];
    return typeof loginHint === "string" ? { loginHint, messageHint: typeof messageHint === "string" ? messageHint : undefined } : undefined;
  } catch {
    return undefined;
  }
}

/** Whether the posted state's re-login part is the one recorded (none and none, or the same hash). */
export function samePart(known: LoginState, part: string | undefined): boolean {
  return part === undefined ? known.reloginHash === undefined : known.reloginHash === shortHash(part);
}

export class LoginStates {
  /** `waitMs`: how long an unlaunched state is kept (see the file comment). */
  constructor(private readonly store: SingleUseStore, readonly waitMs: number) {}

  put(id: string, value: LoginState): Promise<void> {
    return this.store.put(stateKey(id), serialize(value), this.waitMs);
  }

  async take(id: string): Promise<LoginState | undefined> {
    return parse(await this.store.take(stateKey(id)));
  }

  async peek(id: string): Promise<LoginState | undefined> {
    return parse(await this.store.peek(stateKey(id)));
  }

  /** The one-time secret of a Platform Storage check page: only the browser shown the page knows it. */
  putContinuation(id: string, secret: string): Promise<void> {
    return this.store.put(continueKey(id), secret, CONTINUATION_TTL_MS);
  }

  takeContinuation(id: string): Promise<string | undefined> {
    return this.store.take(continueKey(id));
  }
}

/** A JSON array, not an object: no field names in memory or in Redis. */
function serialize(s: LoginState): string {
  return JSON.stringify([VERSION, s.nonce, s.issuer, s.clientId, s.deploymentId ?? null, s.browserHash, s.storageTarget ?? null, s.reloginHash ?? null]);
}

/** A state written by an earlier version (another shape) reads as none: that login starts again. */
function parse(text: string | undefined): LoginState | undefined {
  if (text === undefined) return undefined;
  const a = JSON.parse(text) as unknown;
  if (!Array.isArray(a) || a[0] !== VERSION) return undefined;
  const [, nonce, issuer, clientId, deploymentId, hash, storageTarget, reloginHash] = a as [number, string, string, string, string | null, string, string | null, string | null];
  return { nonce, issuer, clientId, deploymentId: deploymentId ?? undefined, browserHash: hash, storageTarget: storageTarget ?? undefined, reloginHash: reloginHash ?? undefined };
}
