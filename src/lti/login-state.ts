/**
 * A login's state, kept server-side (the fleet's single-use store, so any instance can
 * finish a launch) under the `state` sent to the LMS, until the launch takes it, once.
 * It holds the nonce sent with it (the launch's token must carry exactly that nonce), the
 * registration it was made for, the login's `lti_deployment_id`, and the browser secret:
 * the value of this login's cookie, and of its Platform Storage entry, which the launch
 * must present to prove it reached the browser that logged in (login CSRF defence).
 * It expires with `stateTtlSec`, which is also the oldest token `iat` accepted.
 */
import type { SingleUseStore } from "../fleet/single-use.js";

export interface LoginState {
  nonce: string;
  issuer: string;
  clientId: string;
  /** The login's `lti_deployment_id`, if it sent one: the launch's claim must equal it. */
  deploymentId: string | undefined;
  /** The browser secret (cookie value, Platform Storage value). */
  browserSecret: string;
  /** Where the LMS keeps Platform Storage (`lti_storage_target`), if it offered it. */
  storageTarget: string | undefined;
  /** The login's parameters, to start again in a new window when the frame loses the state. */
  login: Record<string, string>;
}

const stateKey = (state: string) => `lti-state:${state}`;
const continueKey = (state: string) => `lti-continue:${state}`;

export class LoginStates {
  constructor(private readonly store: SingleUseStore, private readonly ttlMs: number) {}

  put(state: string, value: LoginState): Promise<void> {
    return this.store.put(stateKey(state), JSON.stringify(value), this.ttlMs);
  }

  async take(state: string): Promise<LoginState | undefined> {
    return parse(await this.store.take(stateKey(state)));
  }

  async peek(state: string): Promise<LoginState | undefined> {
    return parse(await this.store.peek(stateKey(state)));
  }

  /** The one-time secret of a Platform Storage check page: only the browser shown the page knows it. */
  putContinuation(state: string, secret: string): Promise<void> {
    return this.store.put(continueKey(state), secret, this.ttlMs);
  }

  takeContinuation(state: string): Promise<string | undefined> {
    return this.store.take(continueKey(state));
  }
}

function parse(text: string | undefined): LoginState | undefined {
  return text === undefined ? undefined : (JSON.parse(text) as LoginState);
}
