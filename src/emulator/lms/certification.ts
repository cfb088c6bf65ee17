/**
 * The launch messages of the tool tests of 1EdTech's LTI Advantage Conformance
 * Certification Guide (v1.3, the tool section), as the LMS emulator sends them: the known
 * bad payloads, then the valid instructor and learner launches with every role and
 * privacy shape the guide tries. Each is a fault (faults.ts) and claims set on or removed
 * from the emulator's sound launch (`setClaims`), so the tool under test meets them over
 * real HTTP. Numbered in the guide's order (section.group.test); the Deep Linking, Names
 * and Roles and Assignment and Grade tests use the emulator's own services.
 */
import type { LmsFault } from "./faults.js";

const L = "https://purl.imsglobal.org/spec/lti/claim/";
const LIS = "http://purl.imsglobal.org/vocab/lis/v2/";
/** The role the guide's "unknown role" tests add (its spelling). */
const UNKNOWN_ROLE = `${LIS}uknownrole/unknown#Unknown`;

export interface CertificationLaunch {
  /** The guide's number for the test. */
  section: string;
  title: string;
  /** Who launches: the emulator's instructor or its first learner. */
  userId: "instructor-1" | "student-1";
  fault?: LmsFault;
  /** Claims set on the sound launch; `undefined` removes one. */
  claims?: Record<string, unknown>;
}

const NO_NAMES = { name: undefined, given_name: undefined, family_name: undefined, middle_name: undefined };

/** The role and privacy shapes the guide tries for each of its two users. */
function validLaunches(group: string, who: "Instructor" | "Student"): CertificationLaunch[] {
  const userId = who === "Instructor" ? "instructor-1" : "student-1";
  const role = who === "Instructor" ? "Instructor" : "Learner";
  const roles = (value: unknown[]) => ({ [`${L}roles`]: value });
  const shapes: [string, Record<string, unknown> | undefined][] = [
    [`Launch LTI 1.3 Message as ${who}`, undefined],
    [`Launch ${who} with Multiple Role Values`, roles(who === "Instructor"
      ? [`${LIS}membership#Instructor`, `${LIS}institution/person#Faculty`, `${LIS}membership#Mentor`]
      : [`${LIS}membership#Learner`, `${LIS}institution/person#Student`, `${LIS}institution/person#Mentor`])],
    [`Launch ${who} with Short Role Value`, roles([role])],
    [`Launch ${who} with Unknown Role`, roles([`${LIS}membership#${role}`, UNKNOWN_ROLE])],
    [`Launch ${who} With No Role`, roles([""])],
    [`Launch ${who} Only Email`, NO_NAMES],
    [`Launch ${who} Only Names`, { email: undefined }],
    [`Launch ${who} No PII`, { ...NO_NAMES, email: undefined }],
    [`Launch ${who} With Email No Context`, { [`${L}context`]: undefined }],
  ];
  return shapes.map(([title, claims], i) => ({ section: `${group}.${i + 1}`, title, userId, ...(claims ? { claims } : {}) }));
}

export const CERTIFICATION_LAUNCHES: readonly CertificationLaunch[] = [
  { section: "6.1.1", title: "No KID Sent in JWT header", userId: "student-1", fault: "no_kid" },
  { section: "6.1.2", title: "Incorrect KID in JWT header", userId: "student-1", fault: "unknown_kid" },
  { section: "6.1.3", title: "Wrong LTI Version", userId: "student-1", claims: { [`${L}version`]: "11.3" } },
  { section: "6.1.4", title: "No LTI Version", userId: "student-1", claims: { [`${L}version`]: undefined } },
  { section: "6.1.5", title: "Invalid LTI message", userId: "student-1", fault: "not_lti" },
  { section: "6.1.6", title: "Missing LTI Claims", userId: "student-1", claims: { sub: undefined, [`${L}deployment_id`]: undefined, [`${L}roles`]: undefined } },
  { section: "6.1.7", title: "Timestamps Incorrect", userId: "student-1", claims: { iat: 11111, exp: 22222 } },
  { section: "6.1.8", title: "message_type Claim Missing", userId: "student-1", claims: { [`${L}message_type`]: undefined } },
  { section: "6.1.9", title: "role Claim Missing", userId: "student-1", claims: { [`${L}roles`]: undefined } },
  { section: "6.1.10", title: "deployment_id Claim Missing", userId: "student-1", claims: { [`${L}deployment_id`]: undefined } },
  { section: "6.1.11", title: "resource_link_id Claim Missing", userId: "student-1", claims: { [`${L}resource_link`]: undefined } },
  { section: "6.1.12", title: "user Claim Missing", userId: "student-1", claims: { sub: undefined } },
  ...validLaunches("6.2", "Instructor"),
  ...validLaunches("6.3", "Student"),
];

export function certificationLaunch(section: string): CertificationLaunch {
  const found = CERTIFICATION_LAUNCHES.find((t) => t.section === section);
  if (!found) throw new Error(`no certification launch ${section}; one of ${CERTIFICATION_LAUNCHES.map((t) => t.section).join(", ")}`);
  return found;
}
