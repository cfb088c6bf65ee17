/**
 * The student of a learner's launch, from its claims read once (typed-launch.ts): the
 * default of `lti.student`. `email` (an empty string, as Brightspace sends when e-mail is not
 * shared, is missing); `orgInternalId` from `lis.person_sourcedid` (the SIS id schools
 * key rosters by), else `sub` (stable per user within the issuer); names from
 * `given_name`/`family_name`, else from `name` (Open edX and others send only that):
 *
 * - the full name is trimmed and runs of white space (any, the ideographic space too)
 *   become one space;
 * - "Last, First" (a comma) is split at the comma; otherwise the first word is the first
 *   name and the rest the last name ("Ludwig van Beethoven" → "Ludwig" / "van Beethoven",
 *   "محمد بن سلمان" → "محمد" / "بن سلمان"): particles stay with the last name;
 * - a name written in Han, Kana or Hangul puts the family name first ("山田 太郎" →
 *   first "太郎", last "山田"), as given_name/family_name would have said;
 * - one word ("Sukarno", or "山田太郎" with no space, which cannot be split without
 *   guessing) is both the first and the last name: the platform requires both, and a
 *   student whose LMS knows one name cannot change that;
 * - when only one of given_name/family_name is sent, the other is what `name` holds
 *   around it, else the same word;
 * - each name is cut to the platform's 100 characters.
 */
import { textOf } from "../../core/text.js";
import { splitFullName } from "../../identity/student-from-user.js";
import type { LtiStudentFields } from "../options/options.js";
import type { StudentClaims } from "./typed-launch.js";

const NAME_MAX = 100;
/** A name in a script that writes the family name first, and no Latin letter. */
const FAMILY_FIRST = /^[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\u30fc\u3005 ]+$/u;

/** A claim's text without its surrounding white space; none when blank. */
const text = (v: unknown) => textOf(v, Infinity, { trim: true });
const cut = (v: string | undefined) => (v === undefined ? undefined : [...v].slice(0, NAME_MAX).join("").trim());

/** First and last name from the name claims, by the rules above. */
export function namesOf(sent: Pick<StudentClaims, "givenName" | "familyName" | "name">): { firstName?: string; lastName?: string } {
  let firstName = text(sent.givenName);
  let lastName = text(sent.familyName);
  const full = text(sent.name)?.replace(/\s+/g, " ");
  if ((firstName === undefined || lastName === undefined) && full !== undefined) {
    const space = full.indexOf(" ");
    if (firstName === undefined && lastName === undefined && space > 0 && FAMILY_FIRST.test(full)) {
      firstName = full.slice(space + 1);
      lastName = full.slice(0, space);
    } else {
      const split = splitFullName(full, { firstName, lastName });
      firstName ??= split.firstName;
      lastName ??= split.lastName;
    }
  }
  firstName ??= lastName;
  lastName ??= firstName;
  return { firstName: cut(firstName), lastName: cut(lastName) };
}

/** The default student of a launch read once (typed-launch.ts). */
export function studentOf(launch: { student: StudentClaims; userId: string | undefined }): LtiStudentFields {
  return {
    email: text(launch.student.email),
    ...namesOf(launch.student),
    orgInternalId: text(launch.student.personSourcedId) ?? text(launch.userId),
  };
}
