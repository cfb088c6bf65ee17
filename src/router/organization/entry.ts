/**
 * One organization as the router's cache holds it (organizations.ts): the client of its
 * latest key behind a stable face, so a rotated key reaches every part of the
 * organization's scope at once, and the HMAC fingerprint of what that client was built from.
 */
import type { PlatformClient } from "../../platform/types.js";
import type { Organization } from "./organizations.js";

/** One organization as the cache holds it: the client of its latest key behind a stable face. */
export class Entry<S> implements Organization<S> {
  scope!: S;
  examHost: string | undefined;
  /** The HMAC of what the current client was built from (key, base URL, environment). */
  fingerprint: string;
  private current: PlatformClient;
  /** Calls go to the current client, so a rotated key reaches every part of the scope at once. */
  readonly platform: PlatformClient;

  constructor(readonly id: string, client: PlatformClient, fingerprint: string, examHost: string | undefined) {
    this.current = client;
    this.fingerprint = fingerprint;
    this.examHost = examHost;
    this.platform = new Proxy({} as PlatformClient, { get: (_target, name) => Reflect.get(this.current, name) });
  }

  /** The client to close (after its calls) when a new key replaced it. */
  swap(client: PlatformClient, fingerprint: string): PlatformClient {
    const old = this.current;
    this.current = client;
    this.fingerprint = fingerprint;
    return old;
  }

  get client(): PlatformClient {
    return this.current;
  }
}
