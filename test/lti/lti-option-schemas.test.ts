/**
 * `lti.keys`, `lti.registrations`, `lti.emailStandIn` and `lti.toolUrl` read as zod schemas:
 * each mistake is one problem at the name where it is (an entry, a field, a deployment's
 * organization), with its fix; a repeated kid or (issuer, clientId) is found even when
 * another entry is wrong too, so one pass shows every mistake.
 */
import { generateKeyPairSync } from "node:crypto";
import { describe, expect, it } from "vitest";
import { ProblemList } from "../../src/core/configuration-error.js";
import { resolveLtiSettings } from "../../src/lti/settings/settings.js";
import { TOOL_KEY_PEM } from "../support/lti.js";

const key = { kid: "k", privateKey: TOOL_KEY_PEM };
const registration = { issuer: "https://lms.example", clientId: "c", authorizationUrl: "https://lms.example/auth", jwksUrl: "https://lms.example/jwks", deployments: ["d"] };
const DEPLOYMENTS_FIX = 'List the deployment ids the LMS shows for this tool, e.g. ["1:8865aa…"] or [{ id: "1:8865aa…", organization: "north" }].';

function read(lti: object) {
  const problems = new ProblemList();
  const settings = resolveLtiSettings(lti, problems);
  return { settings, problems: problems.all.map(({ option, message, fix }) => [option, message, fix]) };
}
const problemsOf = (lti: object) => read(lti).problems;

describe("lti.registrations", () => {
  it("names a wrong deployment id at the deployment, in either form, and a wrong organization at the organization", () => {
    const deployments = (list: unknown[]) => problemsOf({ keys: [key], registrations: [{ ...registration, deployments: list }] });
    const atEntry = ["lti.registrations[0].deployments[1]", "must be a deployment id (1-255 characters, no control characters) or { id, organization }.", DEPLOYMENTS_FIX];
    expect(deployments(["d", ""])).toEqual([atEntry]);
    expect(deployments(["d", { id: "x".repeat(256) }])).toEqual([atEntry]);
    expect(deployments(["d", { organization: "north" }])).toEqual([atEntry]);
    expect(deployments(["d", "dep\u001b[2K"])).toEqual([atEntry]);
    expect(deployments(["d", { id: "e", organization: 5 }])).toEqual([[
      "lti.registrations[0].deployments[1].organization", "must be a non-empty string.", "Name the organization this deployment launches for, or leave it out.",
    ]]);
    expect(deployments([])).toEqual([["lti.registrations[0].deployments", "must be a non-empty array: launches from a deployment not listed are refused.", DEPLOYMENTS_FIX]]);
  });

  it("names each wrong field with its fix, and an entry that is no object at the entry", () => {
    expect(problemsOf({ keys: [key], registrations: [{ ...registration, issuer: "", jwksUrl: "http://lms.example/jwks" }, null] })).toEqual([
      ["lti.registrations[0].issuer", "must be a non-empty string of at most 255 characters, with no control characters.", "Copy it from the LMS's registration of this tool."],
      ["lti.registrations[0].jwksUrl", "must be an https URL (http only for localhost).", "Copy it from the LMS's documentation (see docs/lti.md for each LMS)."],
      ["lti.registrations[1]", "must be an object { issuer, clientId, authorizationUrl, jwksUrl, deployments }.", expect.stringContaining("Pass e.g. registrations: [{ issuer:")],
    ]);
  });

  it("refuses an issuer or client id with control characters (a terminal escape, a bidi override)", () => {
    expect(problemsOf({ keys: [key], registrations: [{ ...registration, clientId: "c\u001b[2K", issuer: "https://lms.example/\u202e" }] }).map(([option]) => option))
      .toEqual(["lti.registrations[0].issuer", "lti.registrations[0].clientId"]);
  });

  it("finds a repeated (issuer, clientId) beside another entry's mistake", () => {
    expect(problemsOf({ keys: [key], registrations: [{ ...registration, deployments: [""] }, registration, registration] }).map(([option, message]) => [option, message])).toEqual([
      ["lti.registrations[0].deployments[0]", "must be a deployment id (1-255 characters, no control characters) or { id, organization }."],
      ["lti.registrations[1]", "repeats issuer https://lms.example with client id c."],
      ["lti.registrations[2]", "repeats issuer https://lms.example with client id c."],
    ]);
  });

  it("reads each entry into a registration of the options, its deployments keyed by id", () => {
    const { settings } = read({ keys: [key], registrations: [{ ...registration, deployments: ["d", { id: "e", organization: "north" }] }] });
    const [found] = settings!.registrations.all();
    expect(found).toMatchObject({ issuer: "https://lms.example", clientId: "c", tokenUrl: undefined, active: true, acceptNewDeployments: false, source: "options" });
    expect([...found!.deployments]).toEqual([["d", undefined], ["e", "north"]]);
  });
});

describe("lti.keys", () => {
  it("finds a repeated kid beside another key's mistake, and says why a private key is refused", () => {
    const ec = generateKeyPairSync("ec", { namedCurve: "P-256" }).privateKey.export({ format: "pem", type: "pkcs8" }).toString();
    expect(problemsOf({ keys: [{ kid: "a b", privateKey: ec }, key, { kid: "k" }, null] }).map(([option, message]) => [option, message])).toEqual([
      ["lti.keys[0].kid", "must be 1-64 letters, digits, '.', '_' or '-'."],
      ["lti.keys[0].privateKey", "is a ec key; LTI 1.3 signs with RS256, an RSA key."],
      ["lti.keys[2].privateKey", "is missing."],
      ["lti.keys[3]", "must be { kid, privateKey }."],
      ["lti.keys[2].kid", '"k" is used by two keys; an LMS could not tell them apart.'],
    ]);
    expect(problemsOf({ keys: [] })).toEqual([["lti.keys", "must be a non-empty array of { kid, privateKey }.", expect.stringContaining('Pass keys: [{ kid: "tool-2026-11"')]]);
  });
});

describe("lti.emailStandIn and lti.toolUrl", () => {
  it("names a wrong stand-in domain at lti.emailStandIn, and lower-cases a right one", () => {
    expect(problemsOf({ keys: [key], emailStandIn: { domain: ["lms.example.edu"] } }).map(([option]) => option)).toEqual(["lti.emailStandIn"]);
    expect(read({ keys: [key], emailStandIn: { domain: "LMS-Users.Example.EDU" } }).settings!.email.standInDomain).toBe("lms-users.example.edu");
  });

  it("refuses a query or credentials in the tool URL, and drops a trailing slash", () => {
    expect(problemsOf({ keys: [key], toolUrl: "https://app.example.edu/oral?x" }).map(([option]) => option)).toEqual(["lti.toolUrl"]);
    expect(problemsOf({ keys: [key], toolUrl: "https://me@app.example.edu/oral" }).map(([option]) => option)).toEqual(["lti.toolUrl"]);
    expect(read({ keys: [key], toolUrl: "https://app.example.edu/oral/" }).settings!.toolUrl).toBe("https://app.example.edu/oral");
  });
});
