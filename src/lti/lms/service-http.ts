/**
 * One HTTP exchange with an LMS service or token endpoint, bounded: a time limit, no
 * redirect followed (a token must not travel to where a redirect points), and at most
 * `maxBytes` of answer read. Node's own `fetch`: a dependency would add nothing here.
 */
import { readLimited } from "../shared/lms-fetch.js";

export interface LmsExchange {
  url: string;
  method: "GET" | "POST" | "PUT" | "DELETE";
  headers: Record<string, string>;
  body?: string;
  timeoutMs: number;
  maxBytes: number;
}

export type LmsReply =
  | { ok: true; status: number; headers: Record<string, string>; text: string }
  | { ok: false; why: "unreachable" | "timeout" | "redirect" | "too_large"; status?: number };

export async function exchange(x: LmsExchange): Promise<LmsReply> {
  const signal = AbortSignal.timeout(x.timeoutMs);
  let response: Response;
  try {
    response = await fetch(x.url, { method: x.method, headers: x.headers, body: x.body, redirect: "manual", signal });
  } catch (error) {
    return { ok: false, why: signal.aborted || (error as Error)?.name === "TimeoutError" ? "timeout" : "unreachable" };
  }
  if (response.status >= 300 && response.status < 400) {
    await response.body?.cancel().catch(() => undefined);
    return { ok: false, why: "redirect", status: response.status };
  }
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => { headers[name.toLowerCase()] = value; });
  try {
    return { ok: true, status: response.status, headers, text: await readLimited(response, x.maxBytes) };
  } catch (error) {
    return { ok: false, why: (error as Error).message === "too_large" ? "too_large" : signal.aborted ? "timeout" : "unreachable", status: response.status };
  }
}

/** The body as JSON when it parses, else the text (an LMS's HTML error page). */
export function bodyOf(text: string): unknown {
  if (text === "") return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
