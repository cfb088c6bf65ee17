/**
 * The LMS emulator's defaults: its course's users (an instructor and two learners) and its
 * signing keys, each under a new `kid` (`rotateKey` makes another).
 */
import { randomUUID } from "node:crypto";
import { exportJWK, generateKeyPair } from "jose";
import type { LmsKey, LmsUser } from "./mint.js";

export const DEFAULT_USERS: LmsUser[] = [
  { id: "instructor-1", name: "Ines Instructor", givenName: "Ines", familyName: "Instructor", email: "ines@lms.example", role: "Instructor", sourcedId: "SIS-I-1" },
  { id: "student-1", name: "Sam Student", givenName: "Sam", familyName: "Student", email: "sam@lms.example", role: "Learner", sourcedId: "SIS-S-1" },
  { id: "student-2", name: "Ada Student", givenName: "Ada", familyName: "Student", email: "ada@lms.example", role: "Learner", sourcedId: "SIS-S-2" },
];

/** A signing key under a new kid: `given` (options.signingKey), else a new RSA key (0.1–0.4 s of CPU). */
export async function newKey(given?: LmsKey["privateKey"]): Promise<LmsKey> {
  if (given !== undefined && !(given?.type === "private" && given.extractable && given.algorithm?.name === "RSASSA-PKCS1-v1_5")) {
    throw new TypeError('createLmsEmulator: signingKey must be an extractable RS256 private key, e.g. (await generateKeyPair("RS256", { extractable: true })).privateKey from jose.');
  }
  const privateKey = given ?? (await generateKeyPair("RS256", { extractable: true })).privateKey;
  const { kty, n, e } = await exportJWK(privateKey);
  const kid = `lms-${randomUUID().slice(0, 8)}`;
  return { kid, privateKey, publicJwk: { kty, n, e, kid, alg: "RS256", use: "sig" } };
}
