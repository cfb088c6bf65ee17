/**
 * An LTI login as the LMS's redirect makes the browser send it, from a given client
 * address (X-Forwarded-For: the bench's host app trusts its loopback proxy). Shared by the
 * login flood (lti-login-jam.test.ts) and the per-address limit (lti-login-address.test.ts).
 */
import type { LtiBench } from "./lti.js";

/** One login from `ip`: the tool's status, its location when it sent the browser on, and the cookie it set. */
export async function login(bench: LtiBench, ip: string, userId = "student-1", cookie?: string): Promise<{ status: number; location: string | null; cookie: string | undefined }> {
  const url = bench.lms.loginUrl(userId, bench.linkId);
  const res = await fetch(url, { redirect: "manual", headers: { "x-forwarded-for": ip, ...(cookie ? { cookie } : {}) } });
  await res.arrayBuffer();
  return { status: res.status, location: res.headers.get("location"), cookie: res.headers.get("set-cookie")?.split(";")[0] };
}
