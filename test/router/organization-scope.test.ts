/**
 * The router's parts that reach the store take the organization from the request, through
 * the one `OrganizationIdOf` they are given: an Idempotency-Key and an exam lookup (with its
 * cache) are per organization. Here a header chooses the organization, standing in for the
 * resolver the router will ask; over HTTP with a real store.
 */
import express, { type Request } from "express";
import request from "supertest";
import { describe, expect, it } from "vitest";
import { silentLogger } from "../../src/core/logger.js";
import { idempotentPost } from "../../src/router/instructor/idempotency.js";
import type { OrganizationIdOf } from "../../src/router/shared/request-organization.js";
import { ExamDirectory } from "../../src/router/shared/exam-directory.js";
import { memoryStore } from "../../src/store/memory.js";
import { DEFAULT_ORGANIZATION } from "../../src/store/types.js";

const byHeader: OrganizationIdOf = (req: Request) => req.get("x-org") ?? DEFAULT_ORGANIZATION;

describe("Idempotency-Key scoped by the request's organization", () => {
  it("treats the same key and user in two organizations as two requests, and replays within each", async () => {
    const store = memoryStore();
    let creates = 0;
    const app = express();
    app.use((req, _res, next) => { (req as Request & { user: unknown }).user = { id: "ines" }; next(); });
    app.post("/courses", express.json(), idempotentPost(store, byHeader, silentLogger), (req, res) => {
      creates += 1;
      res.status(201).json({ org: byHeader(req), n: creates });
    });
    const post = (org: string) => request(app).post("/courses").set("x-org", org).set("Idempotency-Key", "same-key").send({ name: "C" });

    const north = await post("north").expect(201);
    const south = await post("south").expect(201);
    expect(north.body).toEqual({ org: "north", n: 1 });
    expect(south.body).toEqual({ org: "south", n: 2 });
    expect(south.headers["idempotent-replayed"]).toBeUndefined();
    const again = await post("north").expect(201);
    expect(again.headers["idempotent-replayed"]).toBe("true");
    expect(again.body).toEqual({ org: "north", n: 1 });
    expect(creates).toBe(2);
    // Recorded under each organization, and under no other.
    const begin = (org: string) => store.beginIdempotent({ org, user: "id:ines", key: "same-key", bodyHash: "probe" });
    expect(await begin("north")).toEqual({ state: "mismatch" });
    expect(await begin(DEFAULT_ORGANIZATION)).toEqual({ state: "new" });
    await store.close();
  });
});

describe("the exam directory per organization", () => {
  it("finds an exam only in its own organization, cached answers included", async () => {
    const store = memoryStore();
    const directory = new ExamDirectory(store, undefined);
    const createdAt = new Date().toISOString();
    await store.putAssessment("north", { id: "e1", kind: "oral", classId: "k-north", courseId: "c1", name: "E", data: {}, createdAt });
    expect(await directory.classOf("north", "e1", { cached: true })).toMatchObject({ classId: "k-north" });
    // North's answer is in the cache now; south must still ask the store, and not find it.
    expect(await directory.classOf("south", "e1", { cached: true })).toBeUndefined();
    await store.putAssessment("south", { id: "e1", kind: "roleplay", classId: "k-south", courseId: undefined, name: "E", data: {}, createdAt });
    expect(await directory.classOf("south", "e1", { cached: true })).toMatchObject({ classId: "k-south", kind: "roleplay" });
    expect(await directory.classOf("north", "e1", { cached: true })).toMatchObject({ classId: "k-north", kind: "oral" });
    await store.close();
  });
});
