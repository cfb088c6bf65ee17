/**
 * The LMS emulator's `signingKey` option: the LMS publishes the key it is given (under a
 * kid of its own) and its launches verify with it, two LMSs given one key still publish
 * different kids, and a key it cannot publish or sign RS256 with is refused at start.
 */
import { createLocalJWKSet, decodeProtectedHeader, exportJWK, generateKeyPair, jwtVerify } from "jose";
import request from "supertest";
import { describe, expect, it } from "vitest";
import { createLmsEmulator } from "../../src/emulator/index.js";
import { formFields, linkCourse, lmsSigningKey, startLtiBench } from "../support/lti.js";

describe("createLmsEmulator({ signingKey })", () => {
  it("publishes the given key's public half, under a kid of each LMS's own", async () => {
    const { privateKey } = await generateKeyPair("RS256", { extractable: true });
    const { n, e } = await exportJWK(privateKey);
    const [a, b] = [await createLmsEmulator({ signingKey: privateKey }), await createLmsEmulator({ signingKey: privateKey })];
    try {
      const keysOf = async (url: string) => ((await (await fetch(url)).json()) as { keys: Record<string, string>[] }).keys;
      const [ka, kb] = [await keysOf(a.jwksUrl), await keysOf(b.jwksUrl)];
      expect(ka).toEqual([expect.objectContaining({ kty: "RSA", n, e, alg: "RS256", use: "sig" })]);
      expect(ka[0]).not.toHaveProperty("d"); // the public half only
      expect(kb[0]!.n).toBe(n);
      expect(kb[0]!.kid).not.toBe(ka[0]!.kid);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it("signs its launches with that key, and the tool accepts them (a bench's LMS, given a shared key)", async () => {
    const bench = await startLtiBench();
    // The benches' keys (handed out in turn): the bench's LMS signs with one of them, a new key would match none.
    const shared = await Promise.all(Array.from({ length: 4 }, () => lmsSigningKey()));
    try {
      // The launch the LMS mints for the instructor, verified against the shared keys' public halves alone.
      const login = new URL(bench.lms.loginUrl("instructor-1", bench.linkId));
      const auth = new URL((await request(login.origin).get(login.pathname + login.search)).headers.location!);
      const { id_token: idToken } = formFields((await request(auth.origin).get(auth.pathname + auth.search)).text);
      const { kid } = decodeProtectedHeader(idToken!);
      const verified = await Promise.all(shared.map(async (key) => {
        const { kty, n, e } = await exportJWK(key);
        return jwtVerify(idToken!, createLocalJWKSet({ keys: [{ kty, n, e, alg: "RS256", kid }] })).then((r) => r.payload.sub, () => undefined);
      }));
      expect(verified.filter(Boolean)).toEqual(["instructor-1"]);
      await linkCourse(bench); // the tool accepted a whole launch: it throws unless the course is linked
    } finally { await bench.close(); }
  });

  it("refuses a key it cannot publish or sign RS256 with, naming the option", async () => {
    const fixed = (await generateKeyPair("RS256", { extractable: false })).privateKey;
    const publicHalf = (await generateKeyPair("RS256", { extractable: true })).publicKey;
    const ec = (await generateKeyPair("ES256", { extractable: true })).privateKey;
    // null and a plain object, as JavaScript callers can pass them: the same message, not a TypeError from inside.
    const notKeys = [null, { type: "private" }] as unknown as (typeof fixed)[];
    for (const key of [fixed, publicHalf, ec, ...notKeys]) {
      await expect(createLmsEmulator({ signingKey: key })).rejects.toThrow(/signingKey must be an extractable RS256 private key/);
    }
  });
});
