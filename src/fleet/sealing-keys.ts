/**
 * Keys for values the fleet hands out instead of keeping (an LTI login's state, sealed into
 * the `state` parameter): whichever instance gets the value back must open it, so in fleet
 * mode they are derived from the fleet's `secret` (HKDF-SHA-256, one key per purpose, each
 * listed secret's own, the first one's first: rotation as for every sealed value, see
 * docs/fleet.md). In process they come from 32 random bytes made at start-up: a restart
 * makes the values handed out before it unreadable (a login in flight starts again).
 */
import { hkdfSync, randomBytes } from "node:crypto";
import type { FleetKey } from "./secret.js";

/** A 256-bit key and the id of the secret it comes from (a sealed value names it). */
export interface SealingKey {
  id: string;
  key: Uint8Array;
}

const SALT = "express-oral-assessments";

/** The keys for `purpose`, one per listed secret, the one that seals first. */
export function sealingKeys(keys: readonly FleetKey[], purpose: string): SealingKey[] {
  return keys.map(({ id, material }) => ({ id, key: new Uint8Array(hkdfSync("sha256", material, SALT, `fleet:sealed:${purpose}`, 32)) }));
}

/** Per process: one random secret, its keys derived as a fleet's would be. */
export function processSealingKeys(): (purpose: string) => SealingKey[] {
  const material = randomBytes(32);
  return (purpose) => sealingKeys([{ id: "process", material }], purpose);
}
