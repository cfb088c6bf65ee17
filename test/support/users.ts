/**
 * The one set of test users, for every host app the tests start (the passport session
 * app logs in with `username`/`password`; the storm app reads `x-test-user: <username>`).
 * Plain objects, as an LMS's users would be.
 */
import type { StudentIdentity } from "../../src/index.js";

export interface TestUser {
  id: string;
  username: string;
  password: string;
  role: "instructor" | "student";
  email?: string;
  firstName?: string;
  lastName?: string;
  /** Set only where it differs from `id`. */
  orgInternalId?: string;
}

const user = (username: string, fields: Omit<TestUser, "username" | "password">): TestUser => ({ username, password: `pw-${username}`, ...fields });

/** An instructor, two students, one without an e-mail, an impostor sharing Ada's id but not her e-mail, and `s0`…`s99`. */
export const USERS: readonly TestUser[] = [
  user("ines", { id: "u-ins", role: "instructor", email: "ines@school.test", firstName: "Ines", lastName: "Instructor" }),
  user("ada", { id: "u-ada", role: "student", email: "ada@school.test", firstName: "Ada", lastName: "Lovelace" }),
  user("bob", { id: "u-bob", role: "student", email: "bob@school.test", firstName: "Bob", lastName: "Builder" }),
  user("nomail", { id: "u-nomail", role: "student", firstName: "No", lastName: "Mail" }),
  user("impostor", { id: "u-imp", orgInternalId: "u-ada", role: "student", email: "not-ada@school.test", firstName: "Ada", lastName: "Lovelace" }),
  ...Array.from({ length: 100 }, (_, i) => user(`s${i}`, { id: `u-s${i}`, role: "student", email: `s${i}@school.test`, firstName: "Student", lastName: `No${i}` })),
];

const BY_NAME = new Map(USERS.map((u) => [u.username, u]));

/** The test user with this username; throws for an unknown one (a typo in a test). */
export function userNamed(username: string): TestUser {
  const found = BY_NAME.get(username);
  if (!found) throw new Error(`no test user ${username}`);
  return found;
}

/** The roster entry of a test user, as `POST …/prepare` takes it. */
export function rosterOf(username: string): StudentIdentity {
  const u = userNamed(username);
  return { email: u.email ?? "", firstName: u.firstName ?? "", lastName: u.lastName ?? "", orgInternalId: u.orgInternalId ?? u.id };
}
