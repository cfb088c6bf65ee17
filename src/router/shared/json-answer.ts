/**
 * A JSON answer written directly, as `sendProblem` does. Instructor answers carry an
 * organization's records: `no-store` keeps them out of shared and browser caches, and
 * `nosniff` stops a browser from reading them as anything but JSON. Express's `res.json` would
 * also hash the body for an ETag (SHA-1 of every answer) and compare it with the
 * request's conditional headers; instructor answers are private and change with every
 * write, so revalidation buys nothing and the hash costs time on every call.
 */
import type { Response } from "express";

export function sendJson(res: Response, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.statusCode = status;
  res.setHeader("Content-Type", "application/json; charset=utf-8");
  privateAnswerHeaders(res);
  res.setHeader("Content-Length", Buffer.byteLength(text));
  res.end(text);
}

/** The headers every instructor answer carries, JSON, problem or empty. */
export function privateAnswerHeaders(res: Response): void {
  res.setHeader("Cache-Control", "no-store");
  res.setHeader("X-Content-Type-Options", "nosniff");
}
