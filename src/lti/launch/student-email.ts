/**
 * The learner's e-mail when the launch carries none: `lti.email` (the app's lookup), then,
 * only when the app opted in with `lti.emailStandIn`, a stand-in address built from the
 * LMS user (`sub`) and the issuer. Nothing else is invented: with neither, the launch is
 * refused (launch.ts).
 */
import { createHash } from "node:crypto";
import { textOf } from "../../core/text.js";
import type { LtiEmailLookup } from "../options/options.js";
import type { LaunchClaims } from "./typed-launch.js";

export interface EmailSettings {
  lookup: LtiEmailLookup | undefined;
  /** `lti.emailStandIn.domain`, lower-cased; undefined: off. */
  standInDomain: string | undefined;
}

const hex = (text: string, length: number) => createHash("sha256").update(text).digest("hex").slice(0, length);
/** A host name with a letters-only top-level domain (what the platform's e-mail check accepts). */

/** `lti-<8 hex of sha256(iss)>-<sub>@<domain>`: the same LMS user always gets the same address. */
export function standInEmail(issuer: string, sub: string, domain: string): string {
  const user = /^[A-Za-z0-9_-]{1,40}$/.test(sub) ? sub.toLowerCase() : `h-${hex(sub, 24)}`;
  return `lti-${hex(issuer, 8)}-${user}@${domain}`;
}

/** The e-mail for a launch without one: the app's, else the stand-in, else undefined. */
export async function fallbackEmail(settings: EmailSettings, launch: Pick<LaunchClaims, "forHooks" | "issuer" | "userId">, organization: string | undefined): Promise<{ email: string | undefined; from: "lookup" | "stand_in" | "none" }> {
  if (settings.lookup) {
    const found = await settings.lookup(launch.forHooks, { organization });
    const email = textOf(found, Infinity, { trim: true });
    if (email !== undefined) return { email, from: "lookup" };
  }
  if (settings.standInDomain !== undefined && launch.issuer !== undefined && launch.userId !== undefined) {
    return { email: standInEmail(launch.issuer, launch.userId, settings.standInDomain), from: "stand_in" };
  }
  return { email: undefined, from: "none" };
}

