/**
 * Exam-page sessions: what the identity provider keeps once a student has signed in (with
 * a ticket on the custom domain, or on the platform host's sign-in page), so a reload
 * mid-exam, after the spent ticket was stripped from the address bar, stays signed in.
 *
 * The cookie holds only a random id (144 bits); the person lives here, in memory, and
 * `reset()` signs everyone out. Sessions are not bound to a class: the exam page checks
 * that the person is enrolled in the exam's class, as the platform would. A session counts
 * only under the cookie name it was started with: each site (the platform host, each
 * organization's exam host) has its own (see site.ts).
 */
import { randomBytes } from "node:crypto";
import type { IncomingMessage } from "node:http";

export const SESSION_COOKIE = "__session";
/** How long a session lasts without a new sign-in. */
const SESSION_TTL_MS = 12 * 60 * 60 * 1000;

export interface Session {
  name: string;
  email: string;
  expiresAt: number;
  /** The cookie name, i.e. the site, it was started on. */
  cookie: string;
}

export class SessionBook {
  private readonly sessions = new Map<string, Session>();

  /** Starts a session under the cookie `cookie`; returns the `Set-Cookie` header value. */
  start(person: { name: string; email: string }, cookie = SESSION_COOKIE): string {
    this.sweep();
    const id = randomBytes(18).toString("base64url");
    this.sessions.set(id, { ...person, expiresAt: Date.now() + SESSION_TTL_MS, cookie });
    // No Max-Age: a browser session cookie, like the identity provider's. Not `Secure`:
    // the emulator speaks plain http on loopback.
    return `${cookie}=${id}; Path=/; HttpOnly; SameSite=Lax`;
  }

  /** The live session named by the request's cookie `cookie`, if any (one started under another name does not count). */
  of(req: IncomingMessage, cookie = SESSION_COOKIE): Session | undefined {
    const id = cookieValue(req.headers.cookie, cookie);
    const session = id === undefined ? undefined : this.sessions.get(id);
    if (!session || session.cookie !== cookie) return undefined;
    if (Date.now() >= session.expiresAt) {
      this.sessions.delete(id!);
      return undefined;
    }
    return session;
  }

  get size(): number {
    return this.sessions.size;
  }

  clear(): void {
    this.sessions.clear();
  }

  private sweep(): void {
    const now = Date.now();
    for (const [id, s] of this.sessions) if (s.expiresAt <= now) this.sessions.delete(id);
  }
}

function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? "").split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}
