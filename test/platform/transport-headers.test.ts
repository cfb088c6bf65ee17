/**
 * What the transport puts on the wire for each kind of request, header for header: it
 * hands our adapter each request's config itself (no `Axios.request` pipeline), so the
 * headers axios' dispatch used to add must still be there, and nothing else. Asserted
 * against a real local server.
 */
import type { IncomingHttpHeaders } from "node:http";
import { afterEach, expect, it } from "vitest";
import { createTransport, type Transport } from "../../src/platform/transport.js";
import type { HttpMethod } from "../../src/platform/retry.js";
import { listen, type Listening } from "../support/http.js";
import { TEST_KEY } from "../support/keys.js";

let server: Listening | undefined;
let transport: Transport | undefined;
afterEach(async () => {
  transport?.close();
  await server?.close();
  server = transport = undefined;
});

async function headersSent(method: HttpMethod, body?: string): Promise<IncomingHttpHeaders> {
  let seen: IncomingHttpHeaders = {};
  server = await listen((req, res) => {
    seen = req.headers;
    req.resume();
    req.on("end", () => res.end("{}"));
  });
  transport = createTransport({ apiKey: TEST_KEY, maxSockets: 2, userAgent: "headers-test" });
  const answer = await transport.send({ method, url: `${server.url}/api/v1/dev/x`, body, timeoutMs: 2_000 });
  expect(answer.status).toBe(200);
  // The connection's own headers vary with the agent's state; the request's are ours.
  const { host: _host, connection: _connection, ...ours } = seen;
  return ours;
}

const ALWAYS = { authorization: `Bearer ${TEST_KEY}`, accept: "application/json", "user-agent": "headers-test", "accept-encoding": "gzip, deflate, br" };

it.each(["GET", "DELETE"] as const)("sends a bodyless %s with the key, Accept, User-Agent and Accept-Encoding only", async (method) => {
  expect(await headersSent(method)).toEqual(ALWAYS);
});

it.each(["POST", "PUT", "PATCH"] as const)("sends a %s with a JSON body as JSON, with its length", async (method) => {
  const body = JSON.stringify({ name: "Café" });
  expect(await headersSent(method, body)).toEqual({ ...ALWAYS, "content-type": "application/json", "content-length": String(Buffer.byteLength(body)) });
});

it.each(["POST", "PUT", "PATCH"] as const)("sends a bodyless %s with the form Content-Type axios' dispatch gave it (and Node's zero length)", async (method) => {
  expect(await headersSent(method)).toEqual({ ...ALWAYS, "content-type": "application/x-www-form-urlencoded", "content-length": "0" });
});
