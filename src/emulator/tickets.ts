/**
 * Sign-in tokens ("tickets"): what `POST /students/sign-in-token` issues and the exam page
 * redeems. The vendor documents them as expiring after 10 minutes and usable once.
 *
 * A ticket is `signin_` + an HS256 JWT (jose) signed with a secret made at start, so a
 * forged or altered token fails its signature. Expiry and one-time use are enforced
 * against a record kept per `jti` (ms precision; JWT `exp` is whole seconds). Expired
 * records are swept now and then, so a long benchmark does not grow memory without bound.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { SignJWT, errors as joseErrors, jwtVerify } from "jose";

export const TOKEN_PREFIX = "signin_";

export interface TicketRecord {
  jti: string;
  studentId: string;
  classId: string;
  /** ms since epoch. */
  expiresAt: number;
  used: boolean;
}

export interface TicketClaims {
  jti: string;
  sub: string;
  classId: string;
  name: string;
  email: string;
}

/** Why a ticket was refused; the exam page turns each into its own message and status. */
export type TicketRefusal = "missing" | "invalid" | "expired" | "used" | "wrong_class";

export type RedeemResult = { ok: true; claims: TicketClaims } | { ok: false; reason: TicketRefusal };

const SWEEP_EVERY = 1000;

export class TicketBook {
  private readonly secret = randomBytes(32);
  private readonly records = new Map<string, TicketRecord>();
  private issuedSinceSweep = 0;

  constructor(private readonly ttlMs: number) {}

  /** Issues a new single-use token for a student of a class. */
  async issue(subject: { studentId: string; classId: string; name: string; email: string }): Promise<string> {
    const jti = randomUUID();
    const expiresAt = Date.now() + this.ttlMs;
    const jwt = await new SignJWT({ classId: subject.classId, name: subject.name, email: subject.email })
      .setProtectedHeader({ alg: "HS256", typ: "JWT" })
      .setJti(jti)
      .setSubject(subject.studentId)
      .setIssuedAt()
      // Rounded up: the record's ms-precise expiry is the one that decides.
      .setExpirationTime(Math.ceil(expiresAt / 1000))
      .sign(this.secret);
    this.records.set(jti, { jti, studentId: subject.studentId, classId: subject.classId, expiresAt, used: false });
    if (++this.issuedSinceSweep >= SWEEP_EVERY) this.sweep();
    return TOKEN_PREFIX + jwt;
  }

  /**
   * Checks a token for an exam of `classId` and, when every check passes, marks it used.
   * A ticket shown for the wrong class is refused without being used up.
   */
  async redeem(token: string | undefined, classId: string): Promise<RedeemResult> {
    if (!token) return { ok: false, reason: "missing" };
    const jwt = token.startsWith(TOKEN_PREFIX) ? token.slice(TOKEN_PREFIX.length) : token;
    let payload: Record<string, unknown>;
    try {
      ({ payload } = await jwtVerify(jwt, this.secret, { algorithms: ["HS256"] }));
    } catch (err) {
      return { ok: false, reason: err instanceof joseErrors.JWTExpired ? "expired" : "invalid" };
    }
    const { jti, sub, classId: ticketClass, name, email } = payload;
    if (typeof jti !== "string" || typeof sub !== "string" || typeof ticketClass !== "string") {
      return { ok: false, reason: "invalid" };
    }
    // Synchronous from here on: two concurrent redemptions cannot both pass `used`.
    const record = this.records.get(jti);
    if (!record) return { ok: false, reason: "invalid" }; // signed by us, but issued before reset()
    if (record.used) return { ok: false, reason: "used" };
    if (Date.now() >= record.expiresAt) return { ok: false, reason: "expired" };
    if (ticketClass !== classId) return { ok: false, reason: "wrong_class" };
    record.used = true;
    return {
      ok: true,
      claims: { jti, sub, classId: ticketClass, name: typeof name === "string" ? name : "", email: typeof email === "string" ? email : "" },
    };
  }

  snapshot(): TicketRecord[] {
    return [...this.records.values()].map((r) => ({ ...r }));
  }

  clear(): void {
    this.records.clear();
    this.issuedSinceSweep = 0;
  }

  /** Drops expired records: their JWTs fail on `exp` before the record is consulted. */
  private sweep(): void {
    this.issuedSinceSweep = 0;
    // A little slack so a token within its last second (exp rounded up) still finds its record.
    const cutoff = Date.now() - 2000;
    for (const [jti, record] of this.records) if (record.expiresAt < cutoff) this.records.delete(jti);
  }
}
