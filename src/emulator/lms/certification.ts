/**
 * The launch messages of the tool tests of 1EdTech's LTI Advantage Conformance
 * Certification Guide (v1.3, document version 3, section 6 "Tool Certification"), as the LMS
 * emulator sends them: 6.1.1 Known "Bad" Payloads, 6.1.2 Valid Teacher Launches and 6.1.3
 * Valid Student Launches, each test under the guide's own name and description. Each is a
 * fault (faults.ts) and claims set on or removed from the emulator's sound launch
 * (`setClaims`), so the tool under test meets them over real HTTP. The guide's 6.2 Deep
 * Linking, 6.3 Names and Role Provisioning Services and 6.4 Assignment and Grade Services
 * tests use the emulator's own services.
 */
import type { LmsFault } from "./faults.js";

const L = "https://purl.imsglobal.org/spec/lti/claim/";
const LIS = "http://purl.imsglobal.org/vocab/lis/v2/";
/** The role the guide's "unknown role" tests add (its spelling). */
const UNKNOWN_ROLE = `${LIS}uknownrole/unknown#Unknown`;

export interface CertificationLaunch {
  /** The guide's section the test is listed in ("6.1.1", "6.1.2" or "6.1.3"). */
  section: string;
  /** The guide's test name, unique across its LTI Core tests ("No KID Sent in JWT header"). */
  name: string;
  /** The guide's test description. */
  description: string;
  /** Who launches: the emulator's instructor or its first learner. */
  userId: "instructor-1" | "student-1";
  fault?: LmsFault;
  /** Claims set on the sound launch; `undefined` removes one. */
  claims?: Record<string, unknown>;
}

const NO_NAMES = { name: undefined, given_name: undefined, family_name: undefined, middle_name: undefined };

/** The role and privacy shapes the guide tries for each of its two users (6.1.2, 6.1.3). */
function validLaunches(section: string, who: "Instructor" | "Student"): CertificationLaunch[] {
  const userId = who === "Instructor" ? "instructor-1" : "student-1";
  const role = who === "Instructor" ? "Instructor" : "Learner";
  const roles = (value: unknown[]) => ({ [`${L}roles`]: value });
  const shapes: [string, string, Record<string, unknown> | undefined][] = [
    [`Valid ${who} Launch`, `Launch LTI 1.3 Message as ${who}`, undefined],
    [`Valid ${who} Launch with Roles`, `Launch ${who} with Multiple Role Values`, roles(who === "Instructor"
      ? [`${LIS}membership#Instructor`, `${LIS}institution/person#Faculty`, `${LIS}membership#Mentor`]
      : [`${LIS}membership#Learner`, `${LIS}institution/person#Student`, `${LIS}institution/person#Mentor`])],
    [`Valid ${who} Launch Short Role`, `Launch ${who} with Short Role Value`, roles([role])],
    [`Valid ${who} Launch Unknown Role`, `Launch ${who} with Unknown Role`, roles([`${LIS}membership#${role}`, UNKNOWN_ROLE])],
    [`Valid ${who} Launch No Role`, `Launch ${who} With No Role`, roles([""])],
    [`Valid ${who} Launch Email Only`, `Launch ${who} Only Email`, NO_NAMES],
    [`Valid ${who} Launch Names Only`, `Launch ${who} Only Names`, { email: undefined }],
    [`Valid ${who} No PII`, `Launch ${who} No PII`, { ...NO_NAMES, email: undefined }],
    [`Valid ${who} Email Without Context`, `Launch ${who} With Email No Context`, { [`${L}context`]: undefined }],
  ];
  return shapes.map(([name, description, claims]) => ({ section, name, description, userId, ...(claims ? { claims } : {}) }));
}

const bad = (name: string, description: string, change: { fault: LmsFault } | { claims: Record<string, unknown> }): CertificationLaunch =>
  ({ section: "6.1.1", name, description, userId: "student-1", ...change });

export const CERTIFICATION_LAUNCHES: readonly CertificationLaunch[] = [
  bad("No KID Sent in JWT header", "The KID is missing from the header of the JWT", { fault: "no_kid" }),
  bad("Incorrect KID in JWT header", "The KID provided is incorrect", { fault: "unknown_kid" }),
  bad("Wrong LTI Version", "The LTI version claim contains the wrong version", { claims: { [`${L}version`]: "11.3" } }),
  bad("No LTI Version", "The LTI version claim is missing", { claims: { [`${L}version`]: undefined } }),
  bad("Invalid LTI message", "The provided JSON is NOT a 1.3 JWT launch", { fault: "not_lti" }),
  bad("Missing LTI Claims", "The provided 1.3 JWT launch is missing one or more required claims",
    { claims: { sub: undefined, [`${L}deployment_id`]: undefined, [`${L}roles`]: undefined } }),
  bad("Timestamps Incorrect", "JWT iat and exp timestamp Values are Invalid", { claims: { iat: 11111, exp: 22222 } }),
  // The guide's spelling of the test name.
  bad("messsage_type Claim Missing", "The Required message_type Claim Not Present", { claims: { [`${L}message_type`]: undefined } }),
  bad("role Claim Missing", "The Required role Claim Not Present", { claims: { [`${L}roles`]: undefined } }),
  bad("deployment_id Claim Missing", "The Required deployment_id Claim Not Present", { claims: { [`${L}deployment_id`]: undefined } }),
  bad("resource_link_id Claim Missing", "The Required resource_link_id Claim Not Present", { claims: { [`${L}resource_link`]: undefined } }),
  bad("user Claim Missing", "The Required sub Claim Not Present", { claims: { sub: undefined } }),
  ...validLaunches("6.1.2", "Instructor"),
  ...validLaunches("6.1.3", "Student"),
];

/** The test of that name (the guide's test name); throws naming the known ones. */
export function certificationLaunch(name: string): CertificationLaunch {
  const found = CERTIFICATION_LAUNCHES.find((t) => t.name === name);
  if (!found) throw new Error(`no certification launch ${JSON.stringify(name)}; one of ${CERTIFICATION_LAUNCHES.map((t) => t.name).join(", ")}`);
  return found;
}
