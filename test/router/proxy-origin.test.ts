/**
 * The CSRF guard behind a TLS-terminating proxy: the browser sends `Origin: https://host`
 * while the request reaches the app as plain http. With Express's `trust proxy` the guard
 * reads `X-Forwarded-Proto` / `X-Forwarded-Host`; with `publicOrigin` it needs neither; a
 * foreign origin is refused either way. Runs on Express 4 and 5 (the express4 project).
 */
import express from "express";
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigurationError, createPlatformClient, memoryStore, oralAssessments, type OralAssessmentsOptions } from "../../src/index.js";
import type { Emulator } from "../../src/emulator/index.js";
import { startTestEmulator } from "../support/emulator.js";
import { listen, type Listening } from "../support/http.js";
import { TEST_KEY } from "../support/keys.js";

let emulator: Emulator;
let platform: ReturnType<typeof createPlatformClient>;
const servers: Listening[] = [];
beforeAll(async () => {
  emulator = await startTestEmulator();
  platform = createPlatformClient({ apiKey: TEST_KEY, baseUrl: emulator.url });
});
afterAll(async () => {
  for (const s of servers) await s.close();
  platform.close();
  await emulator.close();
});

/** A host app with an instructor signed in, optionally `trust proxy`, and the router at /oral. */
async function hostApp(trustProxy: boolean, options: Partial<OralAssessmentsOptions> = {}): Promise<Listening> {
  const app = express();
  if (trustProxy) app.set("trust proxy", "loopback");
  app.use((req, _res, next) => { (req as { user?: unknown }).user = { id: "i1", role: "instructor" }; next(); });
  app.use("/oral", oralAssessments({ canLaunch: "any-signed-in-user", platform, store: memoryStore(), isInstructor: () => true, ...options }));
  const server = await listen(app);
  servers.push(server);
  return server;
}

const hostOf = (url: string) => new URL(url).host;

describe("the CSRF guard behind a TLS-terminating proxy", () => {
  it("accepts the https origin with trust proxy and X-Forwarded-Proto: https", async () => {
    const app = await hostApp(true);
    await request(app.url).post("/oral/courses").set("X-Forwarded-Proto", "https").set("Origin", `https://${hostOf(app.url)}`)
      .send({ name: "Behind a proxy" }).expect(201);
  });

  it("accepts the forwarded host with trust proxy and X-Forwarded-Host", async () => {
    const app = await hostApp(true);
    await request(app.url).post("/oral/courses").set("X-Forwarded-Proto", "https").set("X-Forwarded-Host", "lms.example.edu")
      .set("Origin", "https://lms.example.edu").send({ name: "Forwarded host" }).expect(201);
  });

  it("refuses the same request without trust proxy (the forwarded headers are anyone's to send)", async () => {
    const app = await hostApp(false);
    const res = await request(app.url).post("/oral/courses").set("X-Forwarded-Proto", "https").set("X-Forwarded-Host", "lms.example.edu")
      .set("Origin", "https://lms.example.edu").send({ name: "Untrusted" }).expect(403);
    expect(res.body.code).toBe("cross_site_request");
    const again = await request(app.url).post("/oral/courses").set("X-Forwarded-Proto", "https").set("Origin", `https://${hostOf(app.url)}`)
      .send({ name: "Untrusted" }).expect(403);
    expect(again.body.code).toBe("cross_site_request");
  });

  it("accepts publicOrigin regardless of proxy headers, and still refuses a foreign origin", async () => {
    const app = await hostApp(false, { publicOrigin: "https://lms.example.edu" });
    await request(app.url).post("/oral/courses").set("Origin", "https://lms.example.edu").send({ name: "Public origin" }).expect(201);
    const foreign = await request(app.url).post("/oral/courses").set("Origin", "https://evil.example").send({ name: "Evil" }).expect(403);
    expect(foreign.body.code).toBe("cross_site_request");
  });

  it("refuses a foreign origin with trust proxy, even when it forwards that origin's host", async () => {
    const app = await hostApp(true);
    const res = await request(app.url).post("/oral/courses").set("X-Forwarded-Proto", "https").set("Origin", "https://evil.example")
      .send({ name: "Evil" }).expect(403);
    expect(res.body.code).toBe("cross_site_request");
    expect(emulator.requests.filter((r) => r.method === "POST" && (r.body as { name?: string } | undefined)?.name === "Evil")).toHaveLength(0);
  });

  it("validates publicOrigin into the one ConfigurationError", () => {
    let caught: unknown;
    try {
      oralAssessments({ canLaunch: "any-signed-in-user", platform, publicOrigin: "lms.example.edu/path", bodyLimit: -1 });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigurationError);
    expect((caught as Error).message).toMatch(/publicOrigin/);
    expect((caught as Error).message).toMatch(/bodyLimit/);
    expect(() => oralAssessments({ canLaunch: "any-signed-in-user", platform, publicOrigin: "https://lms.example.edu/x" })).toThrow(/publicOrigin.*origin only/s);
  });
});
