/**
 * A login's state, kept by no one: sealed (jose, compact JWE, `dir` + A256GCM, under the
 * fleet's `lti-login-state` key, fleet/sealing-keys.ts) into the `state` parameter the LMS
 * sends back with the launch. A login costs no memory and no store write, so however many
 * logins anyone sends, nothing they leave can crowd out a learner's (docs/security.md).
 *
 * It holds only what the launch checks, each field bounded: a random id (the Platform
 * Storage key and the check page's continuation are named by it), the nonce sent with it,
 * the registration it was made for, the login's deployment id, a hash of the browser id
 * (browser-id.ts: the cookie's value and the Platform Storage value, which the launch must
 * present to prove it reached the browser that logged in, the login CSRF defence), the
 * Platform Storage frame if the login offered one, and what the "open in a new window"
 * fallback needs to start the login again (`login_hint`, `lti_message_hint`): only when
 * the login offered no Platform Storage (the only case that falls back) and only when it
 * is short (`RELOGIN_MAX_CHARS`), so the LMS's authorization URL stays short.
 *
 * A state opens for `waitMs` (`min(stateTtlMs, 300 s)`: an LMS answers a login within
 * seconds); `stateTtlMs` still bounds the id_token's age. Used once: the launch records its
 * nonce as used (a claim in the fleet's single-use store, for `waitMs`) only once the
 * LMS-signed token proved it, so only an LMS's launches write, never an anonymous login.
 */
import { EncryptJWT, jwtDecrypt } from "jose";
import type { SealingKey } from "../../fleet/sealing-keys.js";
import type { SingleUseStore } from "../../fleet/single-use.js";

export interface LoginState {
  /** Random: names the Platform Storage value and the check page's continuation. */
  id: string;
  nonce: string;
  issuer: string;
  clientId: string;
  /** The login's `lti_deployment_id`, if it sent one (at most 255 characters): the launch's claim must equal it. */
  deploymentId: string | undefined;
  /** `shortHash` of the browser id the login gave the cookie and Platform Storage. */
  browserHash: string;
  /** Where the LMS keeps Platform Storage (`lti_storage_target`), if the login offered it. */
  storageTarget: string | undefined;
  /** What a new window's login starts again with, if this login carries it. */
  relogin: Relogin | undefined;
}

/** The parameters a new window's login starts again with (the rest is in the state). */
export interface Relogin {
  loginHint: string;
  messageHint: string | undefined;
}

/** The longest re-login part carried in `state` (JSON characters; about 1.3 times as many in the sealed state). */
export const RELOGIN_MAX_CHARS = 1536;
/** The longest a state waits for its launch. */
export const MAX_STATE_WAIT_MS = 300_000;
/** The longest `state` opened (a sealed state with the longest re-login part is about 2,600 characters). */
const MAX_STATE_CHARS = 4096;
/** A Platform Storage check page's continuation lives this long (a `lti.get_data` times out in 3 s). */
const CONTINUATION_TTL_MS = 60_000;
const PURPOSE = "lti-login-state";
const VERSION = 3;

const continueKey = (id: string) => `lti-continue:${id}`;
const nonceKey = (nonce: string) => `lti-nonce:${nonce}`;

/** The re-login part if it is short enough to carry. */
export function reloginToCarry(relogin: Relogin): Relogin | undefined {
  return JSON.stringify([relogin.loginHint, relogin.messageHint ?? null]).length > RELOGIN_MAX_CHARS ? undefined : relogin;
}

export class LoginStates {
  /**
   * `keys`: the fleet's sealing keys (`Fleet.sealingKeys`); `store`: the fleet's single-use
   * store (used nonces, continuations); `waitMs`: how long a state opens (see the file comment).
   */
  constructor(private readonly keys: (purpose: string) => readonly SealingKey[], private readonly store: SingleUseStore, readonly waitMs: number) {}

  /** The `state` parameter: this state sealed, for `waitMs`. */
  async seal(s: LoginState): Promise<string> {
    const [key] = this.keys(PURPOSE);
    const r = s.relogin;
    const claims = { s: [VERSION, s.id, s.nonce, s.issuer, s.clientId, s.deploymentId ?? null, s.browserHash, s.storageTarget ?? null, r ? r.loginHint : null, r?.messageHint ?? null] };
    return new EncryptJWT(claims).setProtectedHeader({ alg: "dir", enc: "A256GCM", kid: key!.id })
      .setExpirationTime(Math.floor((Date.now() + this.waitMs) / 1000)).encrypt(key!.key);
  }

  /** The state a posted `state` seals, if it opens under a listed key and has not expired; else undefined. */
  async open(state: string): Promise<LoginState | undefined> {
    if (state.length > MAX_STATE_CHARS) return undefined;
    const keys = this.keys(PURPOSE);
    try {
      const { payload } = await jwtDecrypt(state, (header) => {
        const found = keys.find((k) => k.id === header.kid);
        if (!found) throw new Error("unknown key");
        return found.key;
      }, { keyManagementAlgorithms: ["dir"], contentEncryptionAlgorithms: ["A256GCM"], requiredClaims: ["exp"] });
      const a = payload.s;
      if (!Array.isArray(a) || a[0] !== VERSION) return undefined;
      const [, id, nonce, issuer, clientId, deploymentId, browserHash, storageTarget, loginHint, messageHint] = a as [number, string, string, string, string, string | null, string, string | null, string | null, string | null];
      return {
        id, nonce, issuer, clientId, deploymentId: deploymentId ?? undefined, browserHash, storageTarget: storageTarget ?? undefined,
        relogin: loginHint === null ? undefined : { loginHint, messageHint: messageHint ?? undefined },
      };
    } catch {
      return undefined;
    }
  }

  /** Records the state's nonce as used, once the LMS-signed token proved the launch: true the first time, false for a replay. */
  use(s: LoginState): Promise<boolean> {
    return this.store.claim(nonceKey(s.nonce), "1", this.waitMs);
  }

  /** The one-time secret of a Platform Storage check page: only the browser shown the page knows it. */
  putContinuation(id: string, secret: string): Promise<void> {
    return this.store.put(continueKey(id), secret, CONTINUATION_TTL_MS);
  }

  takeContinuation(id: string): Promise<string | undefined> {
    return this.store.take(continueKey(id));
  }
}
