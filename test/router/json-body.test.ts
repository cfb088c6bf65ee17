/**
 * The router's JSON body reader (`jsonBody`) reads the common body itself and hands the
 * rest to body-parser. Whatever it reads must come out as body-parser's `express.json`
 * would have it: the same `req.body`, the same error type. Both run side by side in one
 * app over HTTP and are sent the same bodies.
 */
import http from "node:http";
import { gzipSync } from "node:zlib";
import express, { type ErrorRequestHandler, type RequestHandler } from "express";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jsonBody } from "../../src/router/shared/body.js";
import { listen, type Listening } from "../support/http.js";

const LIMIT = 2_000;

let server: Listening;
beforeAll(async () => {
  const app = express();
  const answer: RequestHandler = (req, res) => {
    res.json({ body: req.body === undefined ? "(undefined)" : req.body });
  };
  app.post("/ours", jsonBody(LIMIT), answer);
  app.post("/body-parser", express.json({ limit: LIMIT, strict: true }), answer);
  const errors: ErrorRequestHandler = (error, _req, res, _next) => {
    res.status((error as { status?: number }).status ?? 500).json({ error: (error as { type?: string }).type ?? "(none)" });
  };
  app.use(errors);
  server = await listen(app);
});
afterAll(async () => { await server.close(); });

interface Sent { status: number; text: string }

/** One POST; `parts` are written one by one (with a pause between), under the declared length unless `chunked`. */
function post(path: string, headers: Record<string, string>, parts: Buffer[], chunked = false): Promise<Sent> {
  const length = parts.reduce((n, p) => n + p.length, 0);
  return new Promise((resolve, reject) => {
    const req = http.request(`${server.url}${path}`, {
      method: "POST",
      headers: chunked ? { ...headers, "transfer-encoding": "chunked" } : { ...headers, "content-length": String(length) },
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }));
    });
    req.on("error", reject);
    const write = (i: number) => {
      if (i >= parts.length) return req.end();
      req.write(parts[i]);
      setTimeout(() => write(i + 1), 5);
    };
    write(0);
  });
}

async function both(headers: Record<string, string>, parts: Buffer[], chunked = false): Promise<[Sent, Sent]> {
  return [await post("/ours", headers, parts, chunked), await post("/body-parser", headers, parts, chunked)];
}

const JSON_TYPES = [
  "application/json", "application/json; charset=utf-8", 'application/json;charset="UTF-8"', "APPLICATION/JSON",
  "application/json; charset=latin1", "application/json; charset=utf-16", "application/vnd.api+json", "text/plain",
];

describe("jsonBody", () => {
  it("gives the same body or error as body-parser for any text and content type", async () => {
    const text = fc.oneof(
      fc.json(),
      fc.json().map((j) => ` \n\t${j}`),
      fc.json().map((j) => `\uFEFF${j}`),
      fc.string(),
      fc.constantFrom("", "   ", "{", "[1,", '"just a string"', "42", "null", "true", '{"a":1} x', "\uFEFF", "{}", "[]"),
      fc.string({ minLength: LIMIT - 20, maxLength: LIMIT + 20 }).map((s) => JSON.stringify({ s }).slice(0, LIMIT + 20)),
    );
    await fc.assert(fc.asyncProperty(text, fc.constantFrom(...JSON_TYPES), async (body, type) => {
      const [ours, reference] = await both({ "content-type": type }, [Buffer.from(body, "utf8")]);
      expect(ours).toEqual(reference);
    }), { numRuns: 300 });
  });

  it("reads a body that arrives in several pieces, and leaves chunked bodies to body-parser", async () => {
    const body = Buffer.from(JSON.stringify({ name: "Physics", notes: "é".repeat(200) }), "utf8");
    // Split inside the two-byte "é": the pieces are joined before decoding.
    const parts = [body.subarray(0, 31), body.subarray(31, 200), body.subarray(200)];
    const [ours, reference] = await both({ "content-type": "application/json" }, parts);
    expect(ours.status).toBe(200);
    expect(JSON.parse(ours.text).body).toEqual({ name: "Physics", notes: "é".repeat(200) });
    expect(ours).toEqual(reference);

    const [oursChunked, referenceChunked] = await both({ "content-type": "application/json" }, parts, true);
    expect(oursChunked.status).toBe(200);
    expect(oursChunked).toEqual(referenceChunked);
  });

  it("answers the limit like body-parser: a body over it is entity.too.large, one at it is read", async () => {
    const at = JSON.stringify({ s: "x".repeat(LIMIT - 8) });
    expect(Buffer.byteLength(at)).toBe(LIMIT);
    const [oursAt, referenceAt] = await both({ "content-type": "application/json" }, [Buffer.from(at)]);
    expect(oursAt.status).toBe(200);
    expect(oursAt).toEqual(referenceAt);
    const over = JSON.stringify({ s: "x".repeat(LIMIT - 7) });
    const [oursOver, referenceOver] = await both({ "content-type": "application/json" }, [Buffer.from(over)]);
    expect(JSON.parse(oursOver.text)).toEqual({ error: "entity.too.large" });
    expect(oursOver).toEqual(referenceOver);
  });
});

describe("jsonBody's own checks at their bounds", () => {
  const nested = (levels: number): unknown => (levels <= 1 ? {} : { a: nested(levels - 1) });

  it("reads a body nested exactly 64 levels deep and refuses one nested 65 (entity.too.deep)", async () => {
    const at = await post("/ours", { "content-type": "application/json" }, [Buffer.from(JSON.stringify(nested(64)))]);
    expect(at.status).toBe(200);
    const over = await post("/ours", { "content-type": "application/json" }, [Buffer.from(JSON.stringify(nested(65)))]);
    expect(over.status).toBe(400);
    expect(JSON.parse(over.text)).toEqual({ error: "entity.too.deep" });
  });

  it("hands a gzip body with a declared length to body-parser, which inflates it: the same body as body-parser's", async () => {
    const body = { name: "Physics", notes: "gzip" };
    const [ours, reference] = await both({ "content-type": "application/json", "content-encoding": "gzip" }, [gzipSync(JSON.stringify(body))]);
    expect(ours.status).toBe(200);
    expect(JSON.parse(ours.text).body).toEqual(body);
    expect(ours).toEqual(reference);
  });
});
