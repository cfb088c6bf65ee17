/**
 * studentFromUser on the user object ldapauth-fork (the engine of passport-ldapauth)
 * returns after a real LDAP bind and search against an in-process ldapjs server: its
 * attributes come back as the library builds them (single values as strings, multi-valued
 * attributes as arrays, `dn` added).
 */
import type { AddressInfo } from "node:net";
import ldap from "ldapjs";
import LdapAuth from "ldapauth-fork";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { studentFromUser } from "../../src/identity/student-from-user.js";

const BASE = "ou=people,dc=uni,dc=example";
const ADMIN_DN = "cn=reader,dc=uni,dc=example";
const ADMIN_PASSWORD = "reader-secret";
const PEOPLE: Record<string, { password: string; attributes: Record<string, string | string[]> }> = {
  ana: {
    password: "ana-secret",
    attributes: {
      objectClass: ["inetOrgPerson"], uid: "ana", cn: "Ana Lima", givenName: "Ana", sn: "Lima",
      mail: ["ana.lima@uni.example", "a.lima@alumni.uni.example"],
    },
  },
  // No givenName/sn: only the common name, as many directories have.
  kwame: { password: "kwame-secret", attributes: { objectClass: ["inetOrgPerson"], uid: "kwame", cn: "Kwame Mensah", sn: "Mensah", mail: "kwame@uni.example" } },
};

/** The parts of ldapjs's request/response objects these handlers use. */
interface BindRequest { dn: { toString(): string }; credentials: unknown }
interface SearchRequest { filter: { matches(attributes: Record<string, unknown>): boolean } }
interface Response { end(): void; send(entry: unknown): void }
type Next = (error?: unknown) => void;

let server: ldap.Server;
let url: string;

beforeAll(async () => {
  server = ldap.createServer();
  server.bind("dc=uni,dc=example", (req: BindRequest, res: Response, next: Next) => {
    const dn = req.dn.toString();
    const password = String(req.credentials);
    const person = Object.entries(PEOPLE).find(([uid]) => dn === `uid=${uid},${BASE}`)?.[1];
    if ((dn === ADMIN_DN && password === ADMIN_PASSWORD) || (person && person.password === password)) {
      res.end();
      return next();
    }
    return next(new ldap.InvalidCredentialsError(`invalid credentials for ${dn}`));
  });
  server.search(BASE, (req: SearchRequest, res: Response, next: Next) => {
    for (const [uid, person] of Object.entries(PEOPLE)) {
      if (req.filter.matches(person.attributes)) res.send({ dn: `uid=${uid},${BASE}`, attributes: person.attributes });
    }
    res.end();
    return next();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  url = `ldap://127.0.0.1:${((server as unknown as { address(): AddressInfo }).address()).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
});

function authenticate(username: string, password: string): Promise<Record<string, unknown>> {
  const auth = new LdapAuth({ url, bindDN: ADMIN_DN, bindCredentials: ADMIN_PASSWORD, searchBase: BASE, searchFilter: "(uid={{username}})" });
  return new Promise((resolve, reject) => {
    auth.authenticate(username, password, (error, user) => {
      auth.close(() => {});
      if (error) reject(error instanceof Error ? error : new Error(String(error)));
      else resolve(user as Record<string, unknown>);
    });
  });
}

describe("studentFromUser on ldapauth-fork's user entry", () => {
  it("reads mail (first of several), givenName, sn and uid", async () => {
    const user = await authenticate("ana", "ana-secret");
    expect(user.dn).toBe(`uid=ana,${BASE}`);
    expect(Array.isArray(user.mail)).toBe(true); // multi-valued, as the library returns it
    expect(studentFromUser(user)).toEqual({ email: "ana.lima@uni.example", firstName: "Ana", lastName: "Lima", orgInternalId: "ana" });
  });

  it("completes a missing givenName from cn around the known surname", async () => {
    const user = await authenticate("kwame", "kwame-secret");
    expect(studentFromUser(user)).toEqual({ email: "kwame@uni.example", firstName: "Kwame", lastName: "Mensah", orgInternalId: "kwame" });
  });

  it("a wrong password yields no user at all", async () => {
    await expect(authenticate("ana", "wrong")).rejects.toThrow();
  });
});
