/**
 * Key rotation at the LMS (issue 27.5), over HTTP to a key set server on 127.0.0.1 that
 * counts its requests: an LMS that replaces its key under the same `kid` is accepted at
 * the next launch (one refetch), and 100 forged tokens (signed by another key under the
 * LMS's kid) cost at most one fetch per cooldown. An LMS that rotates to a new `kid` right
 * after the tool fetched its set is accepted at once (issue 44.1), and a flood of made-up
 * kids costs one fetch per cooldown. The resolver is the one verify-launch.ts
 * hands to jwtVerify, with the same options.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { errors, exportJWK, generateKeyPair, jwtVerify, SignJWT, type CryptoKey, type JWK } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RemoteKeySets } from "../../src/lti/lms/remote-keys.js";

const KID = "lms-key";
let server: Server;
let url: string;
let published: JWK;
/** When set, the key set server publishes these keys instead of `published` alone. */
let publishedSet: JWK[] | undefined;
let fetches = 0;
/** True: the key set server answers 500. */
let failing = false;

async function pair(): Promise<{ privateKey: CryptoKey; jwk: JWK }> {
  const { privateKey, publicKey } = await generateKeyPair("RS256", { extractable: true });
  return { privateKey, jwk: { ...(await exportJWK(publicKey)), kid: KID, alg: "RS256", use: "sig" } };
}
const sign = (key: CryptoKey) => new SignJWT({ nonce: "n" }).setProtectedHeader({ alg: "RS256", kid: KID }).setIssuedAt().setExpirationTime("1m").setSubject("u").sign(key);
const verify = (sets: RemoteKeySets, token: string) => jwtVerify(token, sets.of(url), { algorithms: ["RS256"] });

beforeAll(async () => {
  server = createServer((_req, res) => {
    fetches += 1;
    if (failing) {
      res.statusCode = 500;
      res.end("down");
      return;
    }
    res.setHeader("content-type", "application/json");
    res.end(JSON.stringify({ keys: publishedSet ?? [published] }));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe("an LMS key set cached by the tool", () => {
  it("accepts the next launch after the LMS replaced its key under the same kid: one refetch", async () => {
    const sets = new RemoteKeySets({ cooldownMs: 200 });
    const before = await pair();
    published = before.jwk;
    fetches = 0;
    await verify(sets, await sign(before.privateKey));
    expect(fetches).toBe(1);
    await new Promise((r) => setTimeout(r, 250)); // past the cooldown of the first fetch

    const after = await pair();
    published = after.jwk;
    const { payload } = await verify(sets, await sign(after.privateKey));
    expect(payload.sub).toBe("u");
    expect(fetches).toBe(2);
    // Cached again: the next launch costs no fetch.
    await verify(sets, await sign(after.privateKey));
    expect(fetches).toBe(2);
  });

  it("lets 100 forged tokens under the LMS's kid cost at most one fetch per cooldown, each refused as a signature failure", async () => {
    const sets = new RemoteKeySets({ cooldownMs: 1_000 });
    const lms = await pair();
    const forger = await pair();
    published = lms.jwk;
    fetches = 0;
    await verify(sets, await sign(lms.privateKey));
    const forged = await sign(forger.privateKey);
    // Within the cooldown of the set's first fetch: no refetch at all.
    for (let i = 0; i < 10; i += 1) await expect(verify(sets, forged)).rejects.toBeInstanceOf(errors.JWSSignatureVerificationFailed);
    expect(fetches).toBe(1);
    await new Promise((r) => setTimeout(r, 1_050));
    const results = await Promise.allSettled(Array.from({ length: 100 }, () => verify(sets, forged)));
    expect(results.every((r) => r.status === "rejected" && r.reason instanceof errors.JWSSignatureVerificationFailed)).toBe(true);
    expect(fetches).toBe(2);
    // 100 more, one after another, within the cooldown: no fetch.
    for (let i = 0; i < 100; i += 1) await expect(verify(sets, forged)).rejects.toBeInstanceOf(errors.JWSSignatureVerificationFailed);
    expect(fetches).toBe(2);
    // The genuine key still verifies from cache.
    await verify(sets, await sign(lms.privateKey));
    expect(fetches).toBe(2);
  });

  it("does not retry a failing key set per forged token: a failed refetch also waits the cooldown", async () => {
    const sets = new RemoteKeySets({ cooldownMs: 300 });
    const lms = await pair();
    published = lms.jwk;
    await verify(sets, await sign(lms.privateKey));
    await new Promise((r) => setTimeout(r, 350));
    const forged = await sign((await pair()).privateKey);
    failing = true;
    fetches = 0;
    // The first forged token's refetch fails (the key set is unreadable); the next 19 cost nothing.
    await expect(verify(sets, forged)).rejects.toBeInstanceOf(errors.JOSEError);
    for (let i = 0; i < 19; i += 1) await expect(verify(sets, forged)).rejects.toBeInstanceOf(errors.JWSSignatureVerificationFailed);
    expect(fetches).toBe(1);
    failing = false;
  });
});

describe("an LMS rotating to a new kid (issue 44.1)", () => {
  const keyed = async (kid: string) => { const p = await pair(); return { privateKey: p.privateKey, jwk: { ...p.jwk, kid } }; };
  const signAs = (key: CryptoKey, kid: string) => new SignJWT({ nonce: "n" }).setProtectedHeader({ alg: "RS256", kid }).setIssuedAt().setExpirationTime("1m").setSubject("u").sign(key);

  it("verifies the first launch under a new kid published just after the set was fetched (inside the cooldown)", async () => {
    const sets = new RemoteKeySets({ cooldownMs: 60_000 });
    const old = await keyed("old-kid");
    publishedSet = [old.jwk];
    fetches = 0;
    await verify(sets, await signAs(old.privateKey, "old-kid"));
    expect(fetches).toBe(1);
    const rotated = await keyed("new-kid");
    publishedSet = [rotated.jwk];
    const { payload } = await verify(sets, await signAs(rotated.privateKey, "new-kid"));
    expect(payload.sub).toBe("u");
    expect(fetches).toBe(2);
    publishedSet = undefined;
  });

  it("lets a flood of made-up kids cost one fetch per cooldown, each refused as no matching key", async () => {
    const sets = new RemoteKeySets({ cooldownMs: 60_000 });
    const lms = await keyed("lms-kid");
    publishedSet = [lms.jwk];
    fetches = 0;
    await verify(sets, await signAs(lms.privateKey, "lms-kid"));
    const made = await Promise.all(Array.from({ length: 50 }, (_, i) => signAs(lms.privateKey, `made-up-${i}`)));
    const results = await Promise.allSettled(made.map((t) => verify(sets, t)));
    expect(results.every((r) => r.status === "rejected" && r.reason instanceof errors.JWKSNoMatchingKey)).toBe(true);
    for (const t of made) await expect(verify(sets, t)).rejects.toBeInstanceOf(errors.JWKSNoMatchingKey);
    expect(fetches).toBe(2);
    publishedSet = undefined;
  });
});
