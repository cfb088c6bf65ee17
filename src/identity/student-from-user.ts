/**
 * Reads the student a launch signs in (e-mail, first name, last name, the account's stable
 * id) from whatever a login strategy left on `req.user`. A pure function with no Express
 * dependency, exported so integrators can wrap it:
 *
 *   student: (req) => ({ ...studentFromUser(req.user), orgInternalId: req.user.employeeNumber })
 *
 * Understood shapes, read in this order for each field (the first non-empty value wins):
 * 1. a flat user record: `email`, `firstName`, `lastName`, `orgInternalId` (then `id`);
 * 2. passport's normalized profile (Google, GitHub, Facebook, …): `emails[0].value`,
 *    `name.givenName`, `name.familyName`, `id`;
 * 3. OpenID Connect ID-token / userinfo claims (also an LTI 1.3 launch): `email`,
 *    `given_name`, `family_name`, `sub`;
 * 4. SAML profiles (ADFS, Entra ID, Shibboleth, as @node-saml/node-saml returns them) and
 *    LDAP entries: `mail`, `givenName`, `sn`/`surname`, `nameID`, `uid`, and the common
 *    claim URIs and OIDs for e-mail, given name and surname;
 * 5. last resort, for names only: a full name (`displayName`, a string `name`, `cn`, the
 *    display-name claim) split into first and last name (see `splitFullName`).
 * Multi-valued attributes (arrays, as LDAP and SAML give them) yield their first
 * non-empty string. Numbers are turned into strings (ids). Nothing is trimmed or
 * lower-cased: the values reach the platform as the identity provider sent them.
 */

import { isText } from "../core/text.js";
import type { StudentIdentity } from "../platform/schemas.js";

/** The student fields this mapper can find (the platform's one `StudentIdentity`); any may be missing. */
export type StudentFields = StudentIdentity;

/** Claim URIs (WS-Federation / ADFS / Entra ID) and X.500 / eduPerson OIDs (Shibboleth). */
const CLAIMS = {
  email: [
    "http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress",
    "http://schemas.xmlsoap.org/claims/EmailAddress",
    "urn:oid:0.9.2342.19200300.100.1.3", // mail
    "urn:oid:1.2.840.113549.1.9.1", // emailAddress
  ],
  givenName: [
    "http://schemas.xmlsoap.org/ws/2005/05/identity/claims/givenname",
    "urn:oid:2.5.4.42", // givenName
  ],
  surname: [
    "http://schemas.xmlsoap.org/ws/2005/05/identity/claims/surname",
    "urn:oid:2.5.4.4", // sn
  ],
  displayName: [
    "http://schemas.microsoft.com/identity/claims/displayname",
    "urn:oid:2.16.840.1.113730.3.1.241", // displayName
  ],
  uid: ["urn:oid:0.9.2342.19200300.100.1.1"], // uid
} as const;

const SAML_EMAIL_NAME_ID = "urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress";

type Fields = Record<string, unknown>;

/** A usable scalar: a non-empty string or a finite number (as a string); arrays give their first such value. */
function text(value: unknown): string | undefined {
  if (Array.isArray(value)) {
    for (const item of value) {
      const found = text(item);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (typeof value === "string") return isText(value, Infinity, { trim: true }) ? value : undefined;
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  return undefined;
}

const record = (value: unknown): Fields | undefined =>
  value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Fields) : undefined;

/** The first key of `keys` with a usable value in `user`. */
function first(user: Fields, keys: readonly string[]): string | undefined {
  for (const key of keys) {
    const found = text(user[key]);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** passport's `emails: [{ value }]` (or plain strings): the first entry with a value. */
function passportEmail(emails: unknown): string | undefined {
  if (!Array.isArray(emails)) return undefined;
  for (const entry of emails) {
    const found = text(record(entry)?.value) ?? text(entry);
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * Splits a full name when no explicit first or last name was found. A name with a comma
 * is "Last, First"; otherwise the last name is the rest after the first word ("Ana Maria
 * Lima" → "Ana", "Maria Lima"). When one of the two is known, the other is what is left
 * of the full name around it. A single word is a first name only (the last name stays
 * missing rather than invented).
 */
export function splitFullName(full: string, known: { firstName?: string; lastName?: string } = {}): { firstName?: string; lastName?: string } {
  const name = full.trim().replace(/\s+/g, " ");
  if (known.firstName && name.startsWith(`${known.firstName} `)) return { lastName: name.slice(known.firstName.length + 1) };
  if (known.lastName && name.endsWith(` ${known.lastName}`)) return { firstName: name.slice(0, -known.lastName.length - 1) };
  const comma = name.indexOf(",");
  if (comma > 0) {
    const last = name.slice(0, comma).trim();
    const firstPart = name.slice(comma + 1).trim();
    return { firstName: firstPart || undefined, lastName: last || undefined };
  }
  const space = name.indexOf(" ");
  if (space < 0) return { firstName: name || undefined };
  return { firstName: name.slice(0, space), lastName: name.slice(space + 1) };
}

/**
 * The student fields found in a logged-in user (`req.user`), or undefined when there is no
 * user object. Missing fields are `undefined`; the router then shows its "missing
 * information" page naming them.
 */
export function studentFromUser(user: unknown): Partial<StudentFields> | undefined {
  const u = record(user);
  if (!u) return undefined;
  const name = record(u.name); // passport's { givenName, familyName }; a string `name` is a full name (OIDC)
  const nameId = text(u.nameID);

  const email = first(u, ["email"])
    ?? passportEmail(u.emails)
    ?? first(u, ["mail", ...CLAIMS.email])
    ?? (u.nameIDFormat === SAML_EMAIL_NAME_ID ? nameId : undefined);

  let firstName = first(u, ["firstName"])
    ?? (name && first(name, ["givenName"]))
    ?? first(u, ["given_name", "givenName", ...CLAIMS.givenName]);

  let lastName = first(u, ["lastName"])
    ?? (name && first(name, ["familyName"]))
    ?? first(u, ["family_name", "sn", "surname", ...CLAIMS.surname]);

  if (firstName === undefined || lastName === undefined) {
    const full = first(u, ["displayName", ...(name ? [] : ["name"]), "cn", ...CLAIMS.displayName]);
    if (full !== undefined) {
      const split = splitFullName(full, { firstName, lastName });
      firstName ??= split.firstName;
      lastName ??= split.lastName;
    }
  }

  const orgInternalId = first(u, ["orgInternalId", "id", "sub"]) ?? nameId ?? first(u, ["uid", ...CLAIMS.uid]);

  return { email, firstName, lastName, orgInternalId };
}
