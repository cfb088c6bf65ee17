/**
 * The OpenAPI document against the router's real error answers: a 400, a 415 and an
 * upstream 502 are each valid by the Problem schema and documented for their route.
 */
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { offlineRouter } from "./support/offline-router.js";
import { doc, validate } from "./support/openapi-schema.js";

const router = offlineRouter();

describe("the document against the router's real answers", () => {
  let server: Server;
  let base: string;

  beforeAll(async () => {
    const app = express();
    app.use((req, _res, next) => {
      (req as unknown as { user: unknown }).user = { id: "u1", role: "instructor" };
      next();
    });
    app.use("/oral", router);
    server = app.listen(0, "127.0.0.1");
    await new Promise((resolve) => server.once("listening", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/oral`;
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  it("a 400 from the router is valid by the Problem schema and names the fields", async () => {
    const res = await fetch(`${base}/oral-assessments`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ name: " ", duration: 1.5 }),
    });
    expect(res.status).toBe(400);
    expect(res.headers.get("content-type")).toMatch(/^application\/problem\+json/);
    const body = await res.json();
    expect(validate(doc.components.schemas.Problem!, body)).toEqual([]);
    expect((body as { errors: { path: string }[] }).errors.map((e) => e.path)).toEqual(expect.arrayContaining(["name", "classId", "duration"]));
  });

  it("a 415 for a non-JSON body is valid by the Problem schema and documented", async () => {
    const res = await fetch(`${base}/courses`, { method: "POST", headers: { "Content-Type": "text/plain" }, body: "name=x" });
    expect(res.status).toBe(415);
    expect(validate(doc.components.schemas.Problem!, await res.json())).toEqual([]);
    expect(doc.paths["/courses"]!.post!.responses).toHaveProperty("415");
  });

  it("a list the platform cannot give is a documented 502 problem", async () => {
    // The client points at a closed port: the list comes from the platform, so this is an upstream failure.
    const res = await fetch(`${base}/courses/c1/classes`);
    expect(res.status).toBe(502);
    expect(validate(doc.components.schemas.Problem!, await res.json())).toEqual([]);
    expect(doc.paths["/courses/{courseId}/classes"]!.get!.responses).toHaveProperty("502");
  });
});
