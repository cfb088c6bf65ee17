/**
 * studentFromUser on the profile @node-saml/node-saml (the engine of passport-saml /
 * @node-saml/passport-saml) returns after validating a signed SAML response: the assertion
 * is built here as an IdP (ADFS / Entra ID, Shibboleth) would send it, signed with
 * node-saml's own signing helper and a throwaway key and certificate (made by the openssl
 * CLI), and checked by `SAML.validatePostResponseAsync` (signature, audience, times).
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { SAML } from "@node-saml/node-saml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { studentFromUser } from "../../src/identity/student-from-user.js";

const require = createRequire(import.meta.url);
const { signXml } = require("@node-saml/node-saml/lib/xml") as {
  signXml(xml: string, xpath: string, location: { reference: string; action: "after" }, options: { privateKey: string; signatureAlgorithm: string; digestAlgorithm: string }): string;
};

const IDP = "https://idp.uni.example/saml";
const SP = "https://lms.uni.example/saml";
const ACS = "https://lms.uni.example/login/saml/callback";
let dir: string;
let privateKey: string;
let certificate: string;

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), "saml-test-"));
  execFileSync("openssl", [
    "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=idp.uni.example",
    "-keyout", path.join(dir, "key.pem"), "-out", path.join(dir, "cert.pem"),
  ], { stdio: "ignore" });
  privateKey = readFileSync(path.join(dir, "key.pem"), "utf8");
  certificate = readFileSync(path.join(dir, "cert.pem"), "utf8");
});

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const escapeXml = (text: string) => text.replace(/[<>&"]/g, (c) => `&#${c.charCodeAt(0)};`);

/** A SAML 2.0 response with one assertion carrying `attributes`, the assertion signed. */
function signedResponse(nameId: { value: string; format: string }, attributes: Record<string, string[]>): string {
  const now = new Date();
  const at = (ms: number) => new Date(now.getTime() + ms).toISOString();
  const attributeXml = Object.entries(attributes).map(([name, values]) =>
    `<saml:Attribute Name="${escapeXml(name)}">${values.map((v) => `<saml:AttributeValue>${escapeXml(v)}</saml:AttributeValue>`).join("")}</saml:Attribute>`).join("");
  const assertion = `<saml:Assertion xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="_assertion1" Version="2.0" IssueInstant="${at(0)}">`
    + `<saml:Issuer>${IDP}</saml:Issuer>`
    + `<saml:Subject><saml:NameID Format="${nameId.format}">${escapeXml(nameId.value)}</saml:NameID>`
    + `<saml:SubjectConfirmation Method="urn:oasis:names:tc:SAML:2.0:cm:bearer"><saml:SubjectConfirmationData NotOnOrAfter="${at(300_000)}" Recipient="${ACS}"/></saml:SubjectConfirmation></saml:Subject>`
    + `<saml:Conditions NotBefore="${at(-60_000)}" NotOnOrAfter="${at(300_000)}"><saml:AudienceRestriction><saml:Audience>${SP}</saml:Audience></saml:AudienceRestriction></saml:Conditions>`
    + `<saml:AuthnStatement AuthnInstant="${at(0)}" SessionIndex="_session1"><saml:AuthnContext><saml:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport</saml:AuthnContextClassRef></saml:AuthnContext></saml:AuthnStatement>`
    + `<saml:AttributeStatement>${attributeXml}</saml:AttributeStatement>`
    + "</saml:Assertion>";
  const signed = signXml(assertion, "//*[local-name(.)='Assertion']", { reference: "//*[local-name(.)='Issuer']", action: "after" }, {
    privateKey, signatureAlgorithm: "sha256", digestAlgorithm: "sha256",
  });
  return `<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" ID="_response1" Version="2.0" IssueInstant="${at(0)}" Destination="${ACS}">`
    + `<saml:Issuer xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion">${IDP}</saml:Issuer>`
    + '<samlp:Status><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Success"/></samlp:Status>'
    + signed
    + "</samlp:Response>";
}

async function profileOf(xml: string, cert = certificate): Promise<Record<string, unknown>> {
  const saml = new SAML({ idpCert: cert, issuer: SP, audience: SP, callbackUrl: ACS, idpIssuer: IDP, wantAssertionsSigned: true, wantAuthnResponseSigned: false });
  const { profile } = await saml.validatePostResponseAsync({ SAMLResponse: Buffer.from(xml, "utf8").toString("base64") });
  if (!profile) throw new Error("no profile");
  return profile as unknown as Record<string, unknown>;
}

describe("studentFromUser on @node-saml/node-saml's validated profile", () => {
  it("ADFS / Entra ID claim URIs; the persistent NameID is the stable id", async () => {
    const profile = await profileOf(signedResponse(
      { value: "a9f1c3e2-0b7d-4f7e-9a51-3f2d6c1b8e40", format: "urn:oasis:names:tc:SAML:2.0:nameid-format:persistent" },
      {
        "http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress": ["ana.lima@uni.example"],
        "http://schemas.xmlsoap.org/ws/2005/05/identity/claims/givenname": ["Ana"],
        "http://schemas.xmlsoap.org/ws/2005/05/identity/claims/surname": ["Lima"],
      },
    ));
    expect(profile.issuer).toBe(IDP); // node-saml's own profile shape
    expect(studentFromUser(profile)).toEqual({
      email: "ana.lima@uni.example", firstName: "Ana", lastName: "Lima", orgInternalId: "a9f1c3e2-0b7d-4f7e-9a51-3f2d6c1b8e40",
    });
  });

  it("Shibboleth OIDs with a multi-valued mail: the first value", async () => {
    const profile = await profileOf(signedResponse(
      { value: "_8c1e4f0a2b", format: "urn:oasis:names:tc:SAML:2.0:nameid-format:transient" },
      {
        "urn:oid:0.9.2342.19200300.100.1.3": ["kwame@uni.example", "k.mensah@alumni.uni.example"],
        "urn:oid:2.5.4.42": ["Kwame"],
        "urn:oid:2.5.4.4": ["Mensah"],
      },
    ));
    expect(Array.isArray(profile["urn:oid:0.9.2342.19200300.100.1.3"])).toBe(true);
    expect(studentFromUser(profile)).toEqual({ email: "kwame@uni.example", firstName: "Kwame", lastName: "Mensah", orgInternalId: "_8c1e4f0a2b" });
  });

  it("friendly attribute names (email, givenName, sn)", async () => {
    const profile = await profileOf(signedResponse(
      { value: "ben@uni.example", format: "urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress" },
      { givenName: ["Ben"], sn: ["Okafor"] },
    ));
    expect(studentFromUser(profile)).toEqual({ email: "ben@uni.example", firstName: "Ben", lastName: "Okafor", orgInternalId: "ben@uni.example" });
  });

  it("a response signed by another key gives no profile (the test really validates)", async () => {
    const other = path.join(dir, "other");
    execFileSync("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=other", "-keyout", `${other}.key`, "-out", `${other}.pem`], { stdio: "ignore" });
    const xml = signedResponse({ value: "x", format: "urn:oasis:names:tc:SAML:2.0:nameid-format:transient" }, { givenName: ["X"] });
    await expect(profileOf(xml, readFileSync(`${other}.pem`, "utf8"))).rejects.toThrow(/signature/i);
  });
});
