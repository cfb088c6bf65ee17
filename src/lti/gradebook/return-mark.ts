/**
 * The return mark: a first-party cookie, `eoa_lti_return`, set when a learner's exam link
 * reaches the exam (the launch redirects to the exam site), read by `GET /lti/return`
 * when the exam site sends the learner back. It names the exam, the student and the LMS
 * launch (course, user, AGS endpoint) and is signed (HMAC-SHA-256 under a key derived
 * from the tool's signing key), so a browser cannot forge a return for another learner.
 * `SameSite=Lax`: it travels on the exam site's top-level redirect back, not on a
 * cross-site subrequest. One mark per browser: the latest exam reached.
 */
import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import type { Request, Response } from "express";
import { cookieOf } from "../shared/browser-id.js";
import type { ToolKeys } from "../lms/tool-keys.js";
import type { Learner } from "./entries.js";

export const RETURN_COOKIE = "eoa_lti_return";

export interface ReturnMark extends Learner {
  /** The organization the link acted for (undefined: the router's own). */
  organization: string | undefined;
}

/** A mark as read: `id` is the same for every replay of one mark, and differs between marks (a hash of its signature). */
export interface ReadMark extends ReturnMark {
  id: string;
  /** Its signature as sent: what `RecentMarks` remembers. */
  mac: string;
  /** When it expires (ms since the epoch). */
  exp: number;
}

/** Marks this process remembers as used, at most (the oldest is forgotten first). */
export const RECENT_MARKS = 10_000;

/**
 * The marks this process already took a return for, by signature, until they expire: a
 * replay of one is known before any signature check or store read (its `Submitted` is
 * queued already; the store would skip it again by its id). Bounded: past `max` marks the
 * oldest is forgotten, and a replay of a forgotten mark costs a check and a store read that
 * queue nothing, as on another instance of a fleet. A forged signature never gets in: only
 * a mark `read` accepted is remembered, and a hit only answers the page.
 */
export class RecentMarks {
  private readonly used = new Map<string, number>();

  constructor(private readonly max = RECENT_MARKS) {}

  /** True when the request's mark is one remembered and not yet expired. */
  has(req: Request): boolean {
    const mac = macOf(cookieOf(req, RETURN_COOKIE));
    const exp = mac === undefined ? undefined : this.used.get(mac);
    if (exp === undefined) return false;
    if (exp > Date.now()) return true;
    this.used.delete(mac!);
    return false;
  }

  remember(mark: ReadMark): void {
    this.used.delete(mark.mac);
    this.used.set(mark.mac, mark.exp);
    if (this.used.size > this.max) this.used.delete(this.used.keys().next().value!);
  }
}

/** The signature part of a mark's cookie value. */
function macOf(value: string | undefined): string | undefined {
  const dot = value?.lastIndexOf(".") ?? -1;
  return dot > 0 ? value!.slice(dot + 1) : undefined;
}

export function returnMarks(keys: ToolKeys, maxAgeMs: number) {
  const secret = createHash("sha256").update("eoa-lti-return-mark\u0000").update(keys.signing().key.export({ format: "pem", type: "pkcs8" })).digest();
  const sign = (payload: string) => createHmac("sha256", secret).update(payload).digest("base64url");
  return {
    set(req: Request, res: Response, mark: ReturnMark): void {
      const payload = Buffer.from(JSON.stringify({ ...mark, exp: Date.now() + maxAgeMs })).toString("base64url");
      res.cookie(RETURN_COOKIE, `${payload}.${sign(payload)}`, { httpOnly: true, secure: true, sameSite: "lax", maxAge: maxAgeMs, path: `${req.baseUrl}/lti/return` });
    },
    /** The request's mark, when it is ours, intact and not expired. */
    read(req: Request): ReadMark | undefined {
      const value = cookieOf(req, RETURN_COOKIE);
      const [payload, mac] = value?.split(".") ?? [];
      if (!payload || !mac) return undefined;
      const expected = Buffer.from(sign(payload));
      const given = Buffer.from(mac);
      if (expected.length !== given.length || !timingSafeEqual(expected, given)) return undefined;
      try {
        const mark = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as ReturnMark & { exp: number };
        const id = createHash("sha256").update(mac).digest("base64url").slice(0, 32);
        return typeof mark.exp === "number" && mark.exp > Date.now() ? { ...mark, id, mac } : undefined;
      } catch {
        return undefined;
      }
    },
    clear(req: Request, res: Response): void {
      res.clearCookie(RETURN_COOKIE, { httpOnly: true, secure: true, sameSite: "lax", path: `${req.baseUrl}/lti/return` });
    },
  };
}
