/**
 * Dynamic Registration's two requests to the LMS (its configuration, its registration
 * endpoint), bounded because the URL comes from a public request: only http(s) URLs the
 * caller checked, no redirects followed (a redirect could lead anywhere), a time limit,
 * and at most 64 KiB of answer read. Node's own `fetch`: no dependency needed for one
 * JSON request with these limits.
 */
export const MAX_ANSWER_BYTES = 64 * 1024;

export type LmsAnswer =
  | { ok: true; status: number; json: unknown }
  | { ok: false; why: "unreachable" | "timeout" | "redirect" | "too_large" | "not_json" | "status"; status?: number; json?: unknown };

export async function fetchLmsJson(url: string, init: { method: "GET" | "POST"; token: string | undefined; body?: unknown; timeoutMs: number }): Promise<LmsAnswer> {
  const headers: Record<string, string> = { Accept: "application/json" };
  if (init.token !== undefined) headers.Authorization = `Bearer ${init.token}`;
  if (init.body !== undefined) headers["Content-Type"] = "application/json";
  let response: Response;
  const signal = AbortSignal.timeout(init.timeoutMs);
  try {
    response = await fetch(url, {
      method: init.method, headers, redirect: "manual", signal,
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
  } catch (error) {
    return { ok: false, why: signal.aborted || (error as Error)?.name === "TimeoutError" ? "timeout" : "unreachable" };
  }
  if (response.status >= 300 && response.status < 400) {
    await response.body?.cancel().catch(() => undefined);
    return { ok: false, why: "redirect", status: response.status };
  }
  let text: string;
  try {
    text = await readLimited(response, MAX_ANSWER_BYTES);
  } catch (error) {
    return { ok: false, why: (error as Error).message === "too_large" ? "too_large" : signal.aborted ? "timeout" : "unreachable", status: response.status };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { ok: false, why: response.ok ? "not_json" : "status", status: response.status };
  }
  return response.ok ? { ok: true, status: response.status, json } : { ok: false, why: "status", status: response.status, json };
}

/** The body as text, refused (`too_large`) past `maxBytes`: an LMS answer is read whole only when small. */
export async function readLimited(response: Response, maxBytes: number): Promise<string> {
  if (!response.body) return "";
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw new Error("too_large");
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}
