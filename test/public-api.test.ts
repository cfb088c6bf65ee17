/**
 * The package's public surface: what integrators use is exported, internals are not.
 */
import { describe, expect, it } from "vitest";
import * as pkg from "../src/index.js";
import { StudentIdentity } from "../src/platform/schemas.js";

describe("the public API", () => {
  it("exports buildOpenApiDocument, the stores and the schemas integrators use", () => {
    const doc = pkg.buildOpenApiDocument({ serverUrl: "/exams" }) as { servers: { url: string }[]; paths: Record<string, unknown> };
    expect(doc.servers[0]?.url).toBe("/exams");
    expect(Object.keys(doc.paths)).toContain("/oral-assessments/{examId}/prepare");
    for (const name of ["memoryStore", "sqliteStore", "postgresStore", "oralAssessments", "createPlatformClient", "createRateBudget"]) {
      expect(typeof (pkg as Record<string, unknown>)[name]).toBe("function");
    }
    expect(pkg.schemas.StudentIdentity).toBe(StudentIdentity);
  });

  it("does not export the error factory, status classifier or schema helpers", () => {
    const exported = pkg as Record<string, unknown>;
    expect(exported.platformErrorFor).toBeUndefined();
    expect(exported.kindForStatus).toBeUndefined();
    const schemas = pkg.schemas as Record<string, unknown>;
    for (const helper of ["issuesOf", "unwrapEnvelope", "envelopeOf"]) expect(schemas[helper]).toBeUndefined();
  });

  it("strips fields beyond the student identity, so nothing undocumented reaches the platform", () => {
    const parsed = StudentIdentity.parse({ email: "ada@example.edu", firstName: "Ada", lastName: "L", orgInternalId: "u1", role: "admin", passwordHash: "x" });
    expect(Object.keys(parsed).sort()).toEqual(["email", "firstName", "lastName", "orgInternalId"]);
  });
});
