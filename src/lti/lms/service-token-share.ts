/**
 * LMS access tokens shared by a fleet (service-access.ts's `TokenShare`): the token kept
 * in the fleet's single-use store (sealed at rest in Redis) until its usable end, and the
 * right to ask the LMS held as a lease of the fleet's plan-lease store (`SET NX PX`), so
 * one instance asks per (registration, scopes) while the others wait for its answer. A
 * holder that dies lets its lease lapse (the plan lease's length); a follower that waited
 * `waitMs` asks itself. In process (one instance) there is nothing to share: undefined.
 */
import { createHash } from "node:crypto";
import type { Fleet } from "../../fleet/fleet.js";
import type { CachedToken, TokenShare } from "./service-access.js";

/** A follower looks for the leader's token this often, ms. */
const POLL_MS = 100;

export function fleetTokenShare(fleet: Pick<Fleet, "kind" | "singleUse" | "planLeases" | "instanceId">, waitMs: number): TokenShare | undefined {
  if (fleet.kind !== "redis") return undefined;
  // The cache key names the registration and scopes: hashed, so the store's keys stay short.
  const id = (key: string) => createHash("sha256").update(key).digest("base64url").slice(0, 32);
  return {
    pollMs: POLL_MS,
    waitMs,
    async get(key) {
      const text = await fleet.singleUse.peek(`lti-token:${id(key)}`);
      if (text === undefined) return undefined;
      try {
        const v = JSON.parse(text) as CachedToken;
        return typeof v.token === "string" && typeof v.until === "number" ? v : undefined;
      } catch {
        return undefined;
      }
    },
    lock: (key) => fleet.planLeases.lead(`lti-token-${id(key)}`, fleet.instanceId),
    async put(key, token) {
      const name = `lti-token:${id(key)}`;
      if (token && token.until > Date.now()) await fleet.singleUse.put(name, JSON.stringify(token), token.until - Date.now());
      else await fleet.singleUse.take(name);
      await fleet.planLeases.resign(`lti-token-${id(key)}`, fleet.instanceId);
    },
  };
}
