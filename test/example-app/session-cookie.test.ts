/**
 * The example app's session cookie: Secure behind a trusted proxy that saw https, never
 * on a client's say-so.
 */
import request from "supertest";
import { describe, expect, it } from "vitest";
import { memoryStore } from "express-oral-assessments";
import { createExampleApp } from "../../example-app/app.js";
import { PASSWORD, listenExampleApp, useExampleApp } from "../support/example-app.js";

const app = useExampleApp();

describe("session cookie", () => {
  async function startApp(options: { trustProxy?: boolean }) {
    const listening = await listenExampleApp(createExampleApp({ schools: app.schools, store: memoryStore(), users: app.users, ...options }));
    return { url: listening.base, close: listening.close };
  }
  const cookieOf = (res: request.Response) => String((res.headers["set-cookie"] as unknown as string[] | undefined)?.find((c) => c.startsWith("example.sid=")));

  it("is Secure when a trusted proxy says the request came over https, and not over plain http", async () => {
    const proxied = await startApp({ trustProxy: true });
    try {
      const https = await request(proxied.url).post("/login").set("X-Forwarded-Proto", "https").type("form").send({ username: "ana", password: PASSWORD });
      expect(https.status).toBe(303);
      expect(cookieOf(https)).toMatch(/;\s*Secure/i);
      expect(cookieOf(https)).toMatch(/;\s*HttpOnly/i);
      const http = await request(proxied.url).post("/login").type("form").send({ username: "ana", password: PASSWORD });
      expect(cookieOf(http)).toMatch(/^example\.sid=/);
      expect(cookieOf(http)).not.toMatch(/;\s*Secure/i);
    } finally {
      await proxied.close();
    }
  });

  it("ignores X-Forwarded-Proto unless told it is behind a proxy (a client cannot fake https)", async () => {
    const res = await request(app.base).post("/login").set("X-Forwarded-Proto", "https").type("form").send({ username: "ana", password: PASSWORD });
    expect(cookieOf(res)).toMatch(/^example\.sid=/);
    expect(cookieOf(res)).not.toMatch(/;\s*Secure/i);
  });
});
