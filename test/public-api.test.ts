/**
 * The package's public surface: what integrators use is exported, internals are not.
 */
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import * as pkg from "../src/index.js";
import { StudentIdentity } from "../src/platform/schemas.js";

/**
 * Every name the package exports, values and types: adding or removing one is a decision
 * made here, in review, not a side effect of an `export *`.
 */
const EXPORTS = [
  "AssessmentRecord", "Class", "ClassCreateInput", "ClassRecord", "ClassUpdateInput", "ConfigurationError", "ConfigurationProblem",
  "Course", "CourseCreateInput", "CourseRecord", "CourseUpdateInput", "DEFAULT_ORGANIZATION", "ExamKind", "ExamResource", "Fleet", "FleetSecret",
  "IdempotencyBegin", "IdempotencyBeginInput", "IdempotencyCompleteInput", "IdempotencyKey", "LaunchContext", "Logger", "LtiOptions",
  "OpenApiDocumentOptions", "OralAssessment", "OralAssessmentCreateInput", "OralAssessmentUpdateInput", "OralAssessmentsOptions",
  "OralAssessmentsRouter", "OralStore", "PlatformClient", "PlatformClientOptions", "PlatformEnv", "PlatformError", "PlatformErrorKind",
  "PostgresStoreOptions", "PrepareError", "PrepareInput", "PrepareOptions", "PrepareProgress", "Problem", "RateBudget", "RedisFleet",
  "RedisFleetOptions", "RenderPage", "RequestOptions", "RequestPriority", "Roleplay", "RoleplayCreateInput", "RoleplayUpdateInput",
  "RouterPage", "RouterPageKind", "RouterPageLink", "SignInToken", "SignInTokenRequestInput", "SqliteStoreOptions", "StudentFields",
  "StudentIdentity", "WithMeta", "buildOpenApiDocument", "createPlatformClient", "fleetReady", "memoryStore", "oralAssessments", "pathOf",
  "postgresStore", "redisFleet", "schemas", "sqliteStore", "studentFromUser",
];

/**
 * Every name `express-oral-assessments/emulator` (`src/emulator/index.ts`) exports: the
 * platform emulator and the LMS emulator, pinned like the main entry's.
 */
const EMULATOR_EXPORTS = [
  "DeepLinkReturn", "DeepLinkingRequestOptions", "Emulator", "EmulatorOptions", "EmulatorOrganization", "EmulatorOrganizationOptions",
  "EmulatorStateSnapshot", "FaultSpec", "FaultSpecError", "LMS_FAULTS", "LMS_PRESETS", "LmsEmulator", "LmsEmulatorOptions", "LmsFault",
  "LmsPreset", "LmsUser", "ReceivedRequest", "ResourceLink", "createLmsEmulator", "startEmulator",
];

/** The names an entry point (`src/index.ts` by default) exports, as the compiler sees them (types included). */
function exportedNames(path = "../src/index.ts"): string[] {
  const entry = fileURLToPath(new URL(path, import.meta.url));
  const program = ts.createProgram([entry], { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, target: ts.ScriptTarget.ES2022, noEmit: true, skipLibCheck: true });
  const checker = program.getTypeChecker();
  const symbol = checker.getSymbolAtLocation(program.getSourceFile(entry)!)!;
  return checker.getExportsOfModule(symbol).map((s) => s.getName()).sort();
}

describe("the public API", () => {
  it("exports exactly the names decided on (values and types)", () => {
    expect(exportedNames()).toEqual([...EXPORTS].sort());
    expect(EXPORTS.length).toBeLessThanOrEqual(70);
  });

  it("exports exactly the names decided on from ./emulator (values and types)", () => {
    expect(exportedNames("../src/emulator/index.ts")).toEqual([...EMULATOR_EXPORTS].sort());
  });

  it("exports buildOpenApiDocument, the stores and the schemas integrators use", () => {
    const doc = pkg.buildOpenApiDocument({ serverUrl: "/exams" }) as { servers: { url: string }[]; paths: Record<string, unknown> };
    expect(doc.servers[0]?.url).toBe("/exams");
    expect(Object.keys(doc.paths)).toContain("/oral-assessments/{examId}/prepare");
    for (const name of ["memoryStore", "sqliteStore", "postgresStore", "oralAssessments", "createPlatformClient"]) {
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
