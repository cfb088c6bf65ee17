/**
 * The default student mapper against the shapes real login strategies leave on
 * `req.user`. Where a strategy package exposes its own parsing, the profile here is the one
 * that package builds (passport-google-oauth20, passport-github2); the other suites in this
 * folder get theirs from a real protocol exchange (oidc, saml, ldap .test.ts). The
 * hand-written objects below cover the flat record the router always understood, the
 * precedence between shapes, and quick SAML-shaped edge cases.
 */
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { splitFullName, studentFromUser } from "../../src/identity/student-from-user.js";

const require = createRequire(import.meta.url);
const googleProfile = require("passport-google-oauth20/lib/profile/openid.js") as { parse(json: unknown): Record<string, unknown> };
const githubProfile = require("passport-github2/lib/profile.js") as { parse(json: unknown): Record<string, unknown> };

describe("studentFromUser: a flat user record (as before)", () => {
  it("reads email, firstName, lastName and orgInternalId as they are", () => {
    expect(studentFromUser({ id: "u_1", orgInternalId: "S-42", email: "ana@example.edu", firstName: "Ana", lastName: "Lima" }))
      .toEqual({ email: "ana@example.edu", firstName: "Ana", lastName: "Lima", orgInternalId: "S-42" });
  });

  it("falls back from orgInternalId to id, and turns numeric ids into strings", () => {
    expect(studentFromUser({ id: 1234, email: "a@x.edu", firstName: "A", lastName: "B" })?.orgInternalId).toBe("1234");
  });

  it("gives undefined for no user, and missing fields for an empty one", () => {
    expect(studentFromUser(undefined)).toBeUndefined();
    expect(studentFromUser(null)).toBeUndefined();
    expect(studentFromUser("ana")).toBeUndefined();
    expect(studentFromUser({})).toEqual({ email: undefined, firstName: undefined, lastName: undefined, orgInternalId: undefined });
  });

  it("prefers flat fields over every profile shape", () => {
    const user = {
      email: "flat@x.edu", emails: [{ value: "profile@x.edu" }], mail: "ldap@x.edu",
      firstName: "Flat", name: { givenName: "Profile", familyName: "Shape" }, given_name: "Claim",
      lastName: "Record", family_name: "Claims", sn: "Ldap",
      orgInternalId: "explicit", id: "id", sub: "sub", nameID: "nameid", uid: "uid",
    };
    expect(studentFromUser(user)).toEqual({ email: "flat@x.edu", firstName: "Flat", lastName: "Record", orgInternalId: "explicit" });
  });

  it("skips empty and blank values instead of sending them", () => {
    expect(studentFromUser({ email: "", emails: [{ value: "" }, { value: "b@x.edu" }], firstName: "  ", given_name: "Bea", orgInternalId: "", id: "7" }))
      .toMatchObject({ email: "b@x.edu", firstName: "Bea", orgInternalId: "7" });
  });
});

describe("studentFromUser: passport profiles built by the strategies' own parsers", () => {
  it("passport-google-oauth20 (OpenID Connect userinfo → normalized profile)", () => {
    const profile = googleProfile.parse(JSON.stringify({
      sub: "10769150350006150715113082367", name: "Ana Lima", given_name: "Ana", family_name: "Lima",
      email: "ana.lima@example.edu", email_verified: true, picture: "https://example.edu/a.png",
    }));
    expect(profile.name).toEqual({ givenName: "Ana", familyName: "Lima" }); // the parser's shape, not ours
    expect(studentFromUser(profile)).toEqual({
      email: "ana.lima@example.edu", firstName: "Ana", lastName: "Lima", orgInternalId: "10769150350006150715113082367",
    });
  });

  it("passport-github2 (only a display name): the name is split, the numeric id becomes the stable id", () => {
    const profile = githubProfile.parse({ id: 583231, login: "octocat", name: "Mona Lisa Octocat", email: "mona@example.edu" });
    expect(studentFromUser(profile)).toEqual({ email: "mona@example.edu", firstName: "Mona", lastName: "Lisa Octocat", orgInternalId: "583231" });
  });

  it("passport-github2 without a public e-mail or name leaves them missing (not invented)", () => {
    const profile = githubProfile.parse({ id: 9, login: "ghost", name: null, email: null });
    expect(studentFromUser(profile)).toEqual({ email: undefined, firstName: undefined, lastName: undefined, orgInternalId: "9" });
  });

  it("a Google profile with given name only completes the last name from the display name", () => {
    const profile = googleProfile.parse({ sub: "1", name: "Ana Maria Lima", given_name: "Ana", email: "a@x.edu" });
    expect(studentFromUser(profile)).toMatchObject({ firstName: "Ana", lastName: "Maria Lima" });
  });
});

describe("studentFromUser: SAML-shaped objects (hand-written; saml.test.ts validates real ones)", () => {
  it("ADFS / Entra ID claim URIs", () => {
    const profile = {
      nameID: "b0c8f7a1-entra-object-id", nameIDFormat: "urn:oasis:names:tc:SAML:2.0:nameid-format:persistent",
      "http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress": "ana@contoso.edu",
      "http://schemas.xmlsoap.org/ws/2005/05/identity/claims/givenname": "Ana",
      "http://schemas.xmlsoap.org/ws/2005/05/identity/claims/surname": "Lima",
    };
    expect(studentFromUser(profile)).toEqual({ email: "ana@contoso.edu", firstName: "Ana", lastName: "Lima", orgInternalId: "b0c8f7a1-entra-object-id" });
  });

  it("Shibboleth OIDs, multi-valued: the first value of each", () => {
    const profile = {
      nameID: "_transient_8f2c", "urn:oid:0.9.2342.19200300.100.1.3": ["ana@uni.edu", "a.lima@uni.edu"],
      "urn:oid:2.5.4.42": ["Ana"], "urn:oid:2.5.4.4": "Lima",
    };
    expect(studentFromUser(profile)).toEqual({ email: "ana@uni.edu", firstName: "Ana", lastName: "Lima", orgInternalId: "_transient_8f2c" });
  });

  it("an e-mail-format NameID is the e-mail when no e-mail attribute came", () => {
    const profile = { nameID: "ana@uni.edu", nameIDFormat: "urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress", givenName: "Ana", sn: "Lima" };
    expect(studentFromUser(profile)).toEqual({ email: "ana@uni.edu", firstName: "Ana", lastName: "Lima", orgInternalId: "ana@uni.edu" });
  });
});

describe("splitFullName (last resort)", () => {
  it.each([
    ["Ana Lima", {}, { firstName: "Ana", lastName: "Lima" }],
    ["  Ana   Maria  Lima ", {}, { firstName: "Ana", lastName: "Maria Lima" }],
    ["Lima, Ana", {}, { firstName: "Ana", lastName: "Lima" }],
    ["Cher", {}, { firstName: "Cher" }],
    ["Ana Maria Lima", { lastName: "Maria Lima" }, { firstName: "Ana" }],
    ["Ana Maria Lima", { firstName: "Ana Maria" }, { lastName: "Lima" }],
  ])("%j with %j known → %j", (full, known, expected) => {
    expect(splitFullName(full, known)).toEqual(expected);
  });
});
