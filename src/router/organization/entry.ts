/**
 * One organization as the router's cache holds it (organizations.ts): the client of its
 * latest key behind a stable face, so a rotated key reaches every part of the
 * organization's scope at once, and the HMAC fingerprint of what that client was built from.
 */
import type { PlatformClient } from "../../platform/types.js";
import type { OrganizationInfo } from "../shared/organization-info.js";
import type { Organization } from "./organization.js";

/** One organization as the cache holds it: the client of its latest key behind a stable face. */
export class Entry<S> implements Organization<S> {
  scope!: S;
  examHost: string | undefined;
  /** The HMAC of what the current client was built from (key, base URL, environment). */
  fingerprint: string;
  private current: PlatformClient;
  /** Calls go to the current client, so a rotated key reaches every part of the scope at once. */
  readonly platform: PlatformClient;
  /**
   * The resolver's last answer this entry took (checked, fingerprinted), field by field.
   * Private (`#`): never enumerated, logged or inspected, as it holds the key.
   */
  #answer: readonly [string, string, string | undefined, string | undefined] | undefined;

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

  /** Remembers the answer this entry now follows (see `answered`). */
  remember(info: OrganizationInfo): void {
    this.#answer = [info.apiKey, info.baseUrl, info.env, info.examHost];
  }

  /**
   * True when `info` is the answer this entry last took, field for field: it was checked
   * and fingerprinted then, so the same answer on the next request (every request of a
   * storm) needs neither the checks, nor the HMAC, nor the exam host's URL parse again.
   */
  answered(info: OrganizationInfo): boolean {
    const a = this.#answer;
    return a !== undefined && a[0] === info.apiKey && a[1] === info.baseUrl && a[2] === info.env && a[3] === info.examHost;
  }

  get client(): PlatformClient {
    return this.current;
  }
}
