/**
 * A JSON answer written directly, as `sendProblem` does. Express's `res.json` would
 * also hash the body for an ETag (SHA-1 of every answer) and compare it with the
 * request's conditional headers; instructor answers are private and change with every
 * write, so revalidation buys nothing and the hash costs time on every call.
 */
import type { Response } from "express";

export function sendJson(res: Response, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.statusCode = status;
  res.setHeader("Content-Type", "application/json; charset=utf-8");
  res.setHeader("Content-Length", Buffer.byteLength(text));
  res.end(text);
}
