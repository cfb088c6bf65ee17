/**
 * The transport's own axios adapter against real local servers: what a server can do to
 * one attempt (compress, send too much, reset mid-body, dribble, redirect) and what the
 * transport makes of it. Failures must carry a kind and a code and nothing else.
 */
import { once } from "node:events";
import type { IncomingMessage, ServerResponse } from "node:http";
import { inspect } from "node:util";
import zlib from "node:zlib";
import { afterEach, expect, it } from "vitest";
import { createTransport, TransportFailure, type Transport, type TransportRequest } from "../../src/platform/transport.js";
import { listen, type Listening } from "../support/http.js";
import { TEST_KEY } from "../support/keys.js";

let server: Listening | undefined;
let transport: Transport | undefined;
afterEach(async () => {
  transport?.close();
  await server?.close();
  server = transport = undefined;
});

/** A server whose sockets we can watch, and a transport pointed at it. */
async function setUp(handler: (req: IncomingMessage, res: ServerResponse) => void, maxBodyBytes?: number) {
  const closed: Promise<void>[] = [];
  server = await listen(handler);
  server.server.on("connection", (socket) => closed.push(once(socket, "close").then(() => undefined)));
  transport = createTransport({ apiKey: TEST_KEY, maxSockets: 2, userAgent: "adapter-test", maxBodyBytes });
  return { url: server.url, closed };
}

function send(url: string, extra: Partial<TransportRequest> = {}) {
  return transport!.send({ method: "GET", url, timeoutMs: 2_000, signal: new AbortController().signal, ...extra });
}

async function failureOf(promise: Promise<unknown>): Promise<TransportFailure> {
  const error = await promise.then(() => undefined, (e: unknown) => e);
  expect(error).toBeInstanceOf(TransportFailure);
  const printed = inspect(error, { showHidden: true, depth: 8 });
  expect(printed).not.toContain(TEST_KEY);
  expect(printed).not.toMatch(/authorization|bearer/i);
  return error as TransportFailure;
}

const JSON_BODY = JSON.stringify({ data: { note: "é".repeat(2_000), n: 42 } });

it.each([
  ["gzip", (b: Buffer) => zlib.gzipSync(b)],
  ["deflate", (b: Buffer) => zlib.deflateSync(b)],
  ["br", (b: Buffer) => zlib.brotliCompressSync(b)],
])("decodes a %s body and asks for it", async (encoding, encode) => {
  let accepted = "";
  const { url } = await setUp((req, res) => {
    accepted = String(req.headers["accept-encoding"]);
    const encoded = encode(Buffer.from(JSON_BODY));
    res.writeHead(200, { "Content-Type": "application/json", "Content-Encoding": encoding, "Content-Length": encoded.length });
    res.end(encoded);
  });
  const response = await send(url);
  expect(accepted.split(/,\s*/)).toContain(encoding);
  expect(response.status).toBe(200);
  expect(response.text).toBe(JSON_BODY);
});

it("sends the key, the JSON body with its byte length, and reads the headers it needs", async () => {
  let seen: { auth?: string; length?: string; type?: string; body: string } = { body: "" };
  const { url } = await setUp(async (req, res) => {
    let body = "";
    for await (const chunk of req) body += String(chunk);
    seen = { auth: req.headers.authorization, length: req.headers["content-length"], type: req.headers["content-type"], body };
    res.writeHead(201, { "X-Request-Id": "req_1", "Retry-After": "2", "X-RateLimit-Remaining": "7" });
    res.end("{}");
  });
  const body = JSON.stringify({ name: "Café" });
  const response = await send(url, { method: "POST", body });
  expect(seen).toEqual({ auth: `Bearer ${TEST_KEY}`, length: String(Buffer.byteLength(body)), type: "application/json", body });
  expect(response).toMatchObject({ status: 201, text: "{}", requestId: "req_1", retryAfterMs: 2_000 });
  expect(response.rateLimit.remaining).toBe(7);
});

it("does not follow a redirect: the 3xx comes back and the other host sees nothing", async () => {
  let elsewhere = 0;
  const other = await listen((_req, res) => {
    elsewhere += 1;
    res.end("{}");
  });
  try {
    const { url } = await setUp((_req, res) => {
      res.writeHead(302, { Location: `${other.url}/steal` });
      res.end();
    });
    const response = await send(url);
    expect(response.status).toBe(302);
    expect(elsewhere).toBe(0);
  } finally {
    await other.close();
  }
});

it("a declared body over maxBodyBytes is too_large, and the socket is dropped", async () => {
  const { url, closed } = await setUp((_req, res) => {
    res.writeHead(200, { "Content-Length": 5_000 });
    res.end("x".repeat(5_000));
  }, 1_000);
  const failure = await failureOf(send(url));
  expect(failure.kind).toBe("too_large");
  await Promise.all(closed);
});

it("a chunked body that grows past maxBodyBytes is too_large before the server has finished", async () => {
  let written = 0;
  const { url, closed } = await setUp((_req, res) => {
    res.writeHead(200, { "Content-Type": "application/json" });
    const timer = setInterval(() => {
      if (res.destroyed || written >= 1_000_000) {
        clearInterval(timer);
        res.end();
        return;
      }
      res.write("y".repeat(500));
      written += 500;
    }, 1);
  }, 2_000);
  const failure = await failureOf(send(url));
  expect(failure.kind).toBe("too_large");
  await Promise.all(closed);
  expect(written).toBeLessThan(1_000_000);
});

it("maxBodyBytes bounds the decoded size: a small gzip that inflates past it is too_large", async () => {
  const bomb = zlib.gzipSync(Buffer.alloc(5_000_000, 0x20));
  const { url } = await setUp((_req, res) => {
    res.writeHead(200, { "Content-Encoding": "gzip", "Content-Length": bomb.length });
    res.end(bomb);
  }, 100_000);
  expect(bomb.length).toBeLessThan(100_000);
  const failure = await failureOf(send(url));
  expect(failure.kind).toBe("too_large");
});

it("a connection reset half-way through the body is a reset", async () => {
  const { url } = await setUp((_req, res) => {
    res.writeHead(200, { "Content-Length": 10_000 });
    res.write("z".repeat(3_000), () => setTimeout(() => res.socket?.destroy(), 20));
  });
  const failure = await failureOf(send(url));
  expect(failure.kind).toBe("reset");
});

it("a body corrupt in its compression is a failure, not garbage text", async () => {
  const { url } = await setUp((_req, res) => {
    res.writeHead(200, { "Content-Encoding": "gzip" });
    res.end(Buffer.from("this is not gzip at all"));
  });
  const failure = await failureOf(send(url));
  expect(failure.kind).toBe("network");
  expect(failure.code).toMatch(/^Z_/);
});

it("timeoutMs is wall-clock: a body dribbled a byte at a time still times out, and the socket is dropped", async () => {
  let bytes = 0;
  const { url, closed } = await setUp((_req, res) => {
    res.writeHead(200, { "Content-Type": "application/json" });
    // The client drops the socket at its deadline: a write racing that drop fails with
    // ECONNRESET on this side, which is the expected end, not a failure of the test.
    res.on("error", () => clearInterval(timer));
    const timer = setInterval(() => {
      if (res.destroyed) return clearInterval(timer);
      res.write(" ");
      bytes += 1;
    }, 20);
  });
  const started = performance.now();
  const failure = await failureOf(send(url, { timeoutMs: 300 }));
  const elapsed = performance.now() - started;
  expect(failure.kind).toBe("timeout");
  // Each byte came well within any idle timer: the body was really dribbling.
  expect(bytes).toBeGreaterThan(3);
  expect(elapsed).toBeGreaterThanOrEqual(290);
  expect(elapsed).toBeLessThan(5_000); // wide (shared machine): an idle timer would wait forever
  await Promise.all(closed);
});

it("the call's signal aborts the attempt mid-flight", async () => {
  let arrived!: () => void;
  const reached = new Promise<void>((resolve) => (arrived = resolve));
  const { url, closed } = await setUp(() => arrived());
  const controller = new AbortController();
  const pending = send(url, { signal: controller.signal });
  await reached;
  controller.abort();
  const failure = await failureOf(pending);
  expect(failure.kind).toBe("aborted");
  await Promise.all(closed);
});

it("a refused connection is a network failure with its system code", async () => {
  const { url } = await setUp((_req, res) => res.end());
  await server!.close();
  server = undefined;
  const failure = await failureOf(send(url));
  expect(failure).toMatchObject({ kind: "network", code: "ECONNREFUSED" });
});

it("sends every path as `new URL` would: plain ones as they are, others normalised, the origin reused", async () => {
  const seen: string[] = [];
  const { url } = await setUp((req, res) => {
    seen.push(String(req.url));
    res.end("{}");
  });
  const paths = [
    "/api/v1/courses/crs_1", "/api/v1/courses?limit=5&cursor=a%2Fb", "/api/v1/a/./b/../c", "/api/v1/%2e%2E/x",
    "/api/v1/with space/é", "/api/v1/q?it's=1", "/api/v1/x#fragment", "/api/v1/.hidden/..x",
  ];
  // Twice each: the first request to an origin parses it, later ones reuse it.
  for (const path of [...paths, ...paths]) await send(`${url}${path}`);
  const expected = paths.map((path) => { const u = new URL(`${url}${path}`); return `${u.pathname}${u.search}`; });
  expect(seen).toEqual([...expected, ...expected]);
  // Not a vacuous comparison: some of these are rewritten by the parser.
  expect(expected).toContain("/api/v1/a/c");
  expect(expected).toContain("/api/v1/with%20space/%C3%A9");
});

it("a declared body over maxBodyBytes is refused on its headers, without waiting for the body", async () => {
  const { url, closed } = await setUp((_req, res) => {
    res.writeHead(200, { "Content-Length": 5_000 });
    // A tenth of it, then nothing: only the declared length tells that it is too large.
    res.write("x".repeat(500));
  }, 1_000);
  const failure = await failureOf(send(url, { timeoutMs: 10_000 }));
  expect(failure.kind).toBe("too_large");
  await Promise.all(closed);
});
