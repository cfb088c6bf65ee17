/**
 * Connection reuse and the in-flight cap, counted at a local HTTP server's `connection`
 * events (the emulator does not expose its server): a burst opens at most
 * `maxConcurrency` sockets and never has more requests in flight than that.
 */
import { afterEach, beforeEach, expect, it } from "vitest";
import { listen, type Listening } from "../support/http.js";
import { clientFor } from "./support.js";

let server: Listening;
let connections = 0;
/** Sockets of this test's server still open. */
let open: Set<unknown>;
let inFlight = 0;
let maxInFlight = 0;

beforeEach(async () => {
  connections = inFlight = maxInFlight = 0;
  const sockets = (open = new Set());
  server = await listen((_req, res) => {
    inFlight += 1;
    maxInFlight = Math.max(maxInFlight, inFlight);
    setTimeout(() => {
      inFlight -= 1;
      res.writeHead(200, { "Content-Type": "application/json" });
      res.end('{"data":[],"meta":{"requestId":"req_local"}}');
    }, 10);
  });
  server.server.on("connection", (socket) => {
    connections += 1;
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
});
afterEach(() => server.close());

it("a burst of 50 GETs opens at most maxConcurrency sockets and keeps at most that many in flight", async () => {
  const client = clientFor(server.url, { maxConcurrency: 4, rateLimitPerMinute: 1000 });
  const results = await Promise.all(Array.from({ length: 50 }, () => client.courses.list()));
  expect(results).toHaveLength(50);
  expect(connections).toBeGreaterThan(0);
  expect(connections).toBeLessThanOrEqual(4);
  expect(maxInFlight).toBeLessThanOrEqual(4);
  expect(client.rateStats().inFlight).toBe(0);
  client.close();
});

it("sequential calls reuse one socket", async () => {
  const client = clientFor(server.url);
  for (let i = 0; i < 5; i++) await client.courses.list();
  expect(connections).toBe(1);
  client.close();
});

it("close() ends the keep-alive sockets", async () => {
  const client = clientFor(server.url);
  await client.courses.list();
  expect(open.size).toBe(1);
  client.close();
  // The sockets close as their close events arrive: wait for them (10 s at most), not a guessed moment.
  const giveUpAt = Date.now() + 10_000;
  while (open.size > 0 && Date.now() < giveUpAt) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(open.size).toBe(0);
});
