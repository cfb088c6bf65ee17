/**
 * A resolver's answer checked before it is used, and an error's message made safe for
 * the log: both as text that never holds the key.
 */
import { ProblemList } from "../../core/configuration-error.js";
import { redactKey } from "../../core/redact.js";
import { isOrganizationId } from "../../store/types.js";
import { checkOrigin } from "../shared/checks.js";
import type { OrganizationInfo } from "../shared/organization-info.js";

/** What is wrong with a resolver's answer, as text that never holds the key. */
export function checkInfo(info: OrganizationInfo): string[] {
  if (info === null || typeof info !== "object") return ["the answer is not an object"];
  const problems: string[] = [];
  if (!isOrganizationId(info.id)) problems.push("id must be 1-64 letters, digits, _ . or -");
  if (typeof info.apiKey !== "string" || info.apiKey === "") problems.push("apiKey is missing");
  if (typeof info.baseUrl !== "string" || info.baseUrl === "") problems.push("baseUrl is missing");
  if (info.examHost !== undefined) {
    const list = new ProblemList();
    if (checkOrigin(info.examHost, "examHost", list, true) === undefined) problems.push("examHost must be an origin (https; http only for localhost)");
  }
  return problems;
}

/**
 * A thrown error's message for the log. The resolver is the integrator's code and may
 * have the key in hand: anything key-like is redacted whatever it is.
 */
export function messageOf(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.replace(/(svc|ct)_(live|test)_\S+/g, (key) => redactKey(key)).replace(/Bearer\s+\S+/g, "Bearer [redacted]");
}
