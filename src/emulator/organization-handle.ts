/**
 * An organization as the running emulator shows it (`emulator.organizations`,
 * `emulator.organization(id)`). Its keys live in private fields behind getters, so printing
 * or serialising it (a test's `console.log`) shows them redacted only.
 */
import { inspect } from "node:util";
import { redactKey } from "../core/redact.js";
import type { EmulatorOrganization } from "./types.js";

export class OrganizationHandle implements EmulatorOrganization {
  readonly #testKey: string;
  readonly #liveKey: string;

  constructor(
    readonly id: string,
    readonly name: string,
    keys: { testKey: string; liveKey: string },
    readonly examHost: string,
  ) {
    this.#testKey = keys.testKey;
    this.#liveKey = keys.liveKey;
  }

  get testKey(): string { return this.#testKey; }
  get liveKey(): string { return this.#liveKey; }

  toJSON(): Record<string, unknown> {
    return { id: this.id, name: this.name, testKey: redactKey(this.#testKey), liveKey: redactKey(this.#liveKey), examHost: this.examHost };
  }

  [inspect.custom](): string {
    return `EmulatorOrganization ${inspect(this.toJSON())}`;
  }
}
