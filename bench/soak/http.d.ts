/** Types for http.js. */
import type { IncomingHttpHeaders } from "node:http";

export function rawRequest(
  baseUrl: string,
  request: { method: string; path: string; headers?: Record<string, string>; body?: string },
  timeoutMs?: number,
): Promise<{ status: number; headers: IncomingHttpHeaders; text: string }>;
