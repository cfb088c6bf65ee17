/**
 * The tool's own keys: read once at start-up (PKCS#8 PEM or RSA JWK), the first signs
 * (deep-linking responses), all are published at `/lti/jwks.json` so an LMS keeps
 * verifying during a rotation. The published set is built from the public parts only
 * (`createPublicKey`), so no private member can reach it; the private `KeyObject`s stay
 * in this closure, which `util.inspect` and JSON cannot reach.
 */
import { createPrivateKey, createPublicKey, type KeyObject } from "node:crypto";
import type { JWK } from "jose";
import { z } from "zod";
import { optionMeta } from "../../core/option-schema.js";
import type { LtiToolKey } from "../options/options.js";
import { eachOnce } from "../shared/shared-options.js";

const KID = /^[A-Za-z0-9._-]{1,64}$/;
/** RSA moduli below this are refused (1EdTech Security Framework §6.1: RS256 with at least 2048 bits). */
const MIN_MODULUS_BITS = 2048;

/** A published key: the public part with its id and use. */
export interface PublishedKey extends JWK {
  kty: "RSA";
  n: string;
  e: string;
  kid: string;
  alg: "RS256";
  use: "sig";
}

export interface ToolKeys {
  /** `{ keys: [...] }`: every key's public part, the signing key first. */
  readonly jwks: { keys: PublishedKey[] };
  /** The key that signs, with its kid. */
  signing(): { kid: string; key: KeyObject };
}

const KEYS_FIX = 'Pass keys: [{ kid: "tool-2026-11", privateKey: fs.readFileSync("tool.pem", "utf8") }] (make one with `openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048`).';
const KEYS = "must be a non-empty array of { kid, privateKey }.";

/**
 * `lti.keys` read into the tool's keys. A kid's fixes travel with its issues (`params`):
 * the last step builds the keys, and option-schema.ts finds no registered fix through it.
 */
export const toolKeysSchema = z.array(z.object({
  kid: z.custom<string>((kid) => typeof kid === "string" && KID.test(kid), { error: "must be 1-64 letters, digits, '.', '_' or '-'.", abort: false, params: { fix: 'Use e.g. "tool-2026-11".' } }),
  privateKey: z.unknown().transform(privateKeyOf),
}, { error: "must be { kid, privateKey }." }), { error: KEYS }).min(1, { error: KEYS })
  // An LMS picks the key to verify with by its kid.
  .check(eachOnce<LtiToolKey>((k) => (typeof k.kid === "string" ? k.kid : undefined), ["kid"],
    (k) => `"${k.kid}" is used by two keys; an LMS could not tell them apart.`, "Give each key its own kid."))
  .transform((read): ToolKeys => {
    const keys = read.map(({ kid, privateKey }): PublishedKey => {
      const { n, e } = createPublicKey(privateKey).export({ format: "jwk" }) as { n: string; e: string };
      return { kty: "RSA", n, e, kid, alg: "RS256", use: "sig" };
    });
    return { jwks: { keys }, signing: () => ({ kid: read[0]!.kid, key: read[0]!.privateKey }) };
  })
  .register(optionMeta, { fix: KEYS_FIX });

/** The private RSA key, or an issue saying why it is not one (never quoting it). */
function privateKeyOf(value: unknown, ctx: z.RefinementCtx): KeyObject {
  const no = (message: string): never => {
    ctx.addIssue({ code: "custom", message });
    return z.NEVER;
  };
  let key: KeyObject;
  try {
    if (typeof value === "string") {
      if (!value.includes("-----BEGIN PRIVATE KEY-----")) return no("is not a PKCS#8 PEM (-----BEGIN PRIVATE KEY-----) or an RSA JWK. Convert a PKCS#1 key with `openssl pkcs8 -topk8 -nocrypt`.");
      key = createPrivateKey({ key: value, format: "pem" });
    } else if (value !== null && typeof value === "object") {
      if (typeof (value as JWK).d !== "string") return no("is a JWK without its private member `d`: it cannot sign.");
      key = createPrivateKey({ key: value as import("node:crypto").JsonWebKey, format: "jwk" });
    } else return no("is missing.");
  } catch {
    return no("could not be read as a private key.");
  }
  if (key.asymmetricKeyType !== "rsa") return no(`is a ${key.asymmetricKeyType ?? "non-RSA"} key; LTI 1.3 signs with RS256, an RSA key.`);
  const bits = key.asymmetricKeyDetails?.modulusLength ?? 0;
  if (bits < MIN_MODULUS_BITS) return no(`is a ${bits}-bit RSA key; at least ${MIN_MODULUS_BITS} bits are required.`);
  return key;
}
