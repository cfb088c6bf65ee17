/**
 * The demo's user directory: two schools (schools.js), each with an instructor and
 * students, with passwords. `school` is the id of the user's school: the organization the
 * router acts for when they are signed in.
 *
 * A real app has its own users table; what matters for the plugin is the shape of
 * `req.user`. The router's default `student` mapper reads `email`, `firstName`,
 * `lastName` and `orgInternalId` from it, with `orgInternalId` falling back to `id`
 * (these users have no `orgInternalId`, so their `id` is what the platform sees).
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

/** The public part of each demo user: exactly what ends up in `req.user`. */
const DEMO_USERS = [
  // North High
  { id: "u_instructor", username: "instructor", role: "instructor", school: "north", email: "ines.moreau@example.edu", firstName: "Ines", lastName: "Moreau" },
  { id: "u_ana", username: "ana", role: "student", school: "north", email: "ana.lima@example.edu", firstName: "Ana", lastName: "Lima" },
  { id: "u_ben", username: "ben", role: "student", school: "north", email: "ben.okafor@example.edu", firstName: "Ben", lastName: "Okafor" },
  // Never on a roster: logging in as this student and opening a launch link shows the 403 page.
  { id: "u_outsider", username: "outsider", role: "student", school: "north", email: "olly.outsider@example.edu", firstName: "Olly", lastName: "Outsider", outsider: true },
  // South College
  { id: "u_professor", username: "professor", role: "instructor", school: "south", email: "paula.reyes@example.edu", firstName: "Paula", lastName: "Reyes" },
  { id: "u_sam", username: "sam", role: "student", school: "south", email: "sam.carter@example.edu", firstName: "Sam", lastName: "Carter" },
  { id: "u_tia", username: "tia", role: "student", school: "south", email: "tia.nguyen@example.edu", firstName: "Tia", lastName: "Nguyen" },
];

const digest = (text) => createHash("sha256").update(String(text), "utf8").digest();

/**
 * @param {{ password?: string, passwords?: Record<string, string> }} [options]
 *   `passwords` by username wins over `password` (one for everybody); users without
 *   either get a random password, different at every start.
 */
export function createDemoUsers(options = {}) {
  const users = DEMO_USERS.map((u) => Object.freeze({ ...u }));
  const passwords = new Map(
    users.map((u) => [u.username, options.passwords?.[u.username] ?? options.password ?? randomBytes(6).toString("base64url")]),
  );
  const byId = new Map(users.map((u) => [u.id, u]));
  const byUsername = new Map(users.map((u) => [u.username, u]));

  return {
    /** Public user records (no passwords). */
    all: () => users,
    findById: (id) => byId.get(id),
    findByUsername: (username) => byUsername.get(String(username ?? "").trim().toLowerCase()),
    /** For the start-up banner and tests only. */
    passwordOf: (username) => passwords.get(username),
    /** The user when the password is right, else undefined. Compares in constant time. */
    verify(username, password) {
      const user = byUsername.get(String(username ?? "").trim().toLowerCase());
      // Compare against something even for an unknown name, so timing does not tell names apart.
      const expected = digest(user ? passwords.get(user.username) : randomBytes(16).toString("hex"));
      const ok = timingSafeEqual(expected, digest(password ?? ""));
      return ok && user ? user : undefined;
    },
    displayName: (user) => `${user.firstName} ${user.lastName}`,
  };
}
