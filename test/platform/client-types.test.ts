/**
 * The client's resource methods are typed from the endpoint table (`endpoint-types.ts`),
 * not by hand: these signatures are what integrators compiled against before, pinned so a
 * change to the derivation that alters one fails `tsc` (`npm run typecheck`). At run time,
 * every entry of the table is a method of the client where its type says.
 */
import { describe, expect, expectTypeOf, it } from "vitest";
import { ENDPOINTS } from "../../src/platform/endpoints.js";
import { createPlatformClient } from "../../src/platform/index.js";
import type {
  Class, ClassCreateInput, ClassUpdateInput, Course, CourseCreateInput, CourseUpdateInput, ExamResource, ListFilter, OralAssessment,
  OralAssessmentCreateInput, OralAssessmentUpdateInput, PlatformClient, RequestOptions, Roleplay, RoleplayCreateInput, RoleplayUpdateInput,
  SignInToken, SignInTokenRequestInput, WithMeta,
} from "../../src/platform/index.js";
import { TEST_KEY } from "../support/keys.js";

type C = PlatformClient;
type Opts = [opts?: RequestOptions];

describe("the client's method types, derived from the endpoint table", () => {
  it("take the path ids in order, then the body (or an optional list filter), then the options", () => {
    expectTypeOf<Parameters<C["courses"]["create"]>>().toEqualTypeOf<[CourseCreateInput, ...Opts]>();
    expectTypeOf<Parameters<C["courses"]["list"]>>().toEqualTypeOf<Opts>();
    expectTypeOf<Parameters<C["courses"]["update"]>>().toEqualTypeOf<[string, CourseUpdateInput, ...Opts]>();
    expectTypeOf<Parameters<C["classes"]["create"]>>().toEqualTypeOf<[string, ClassCreateInput, ...Opts]>();
    expectTypeOf<Parameters<C["classes"]["list"]>>().toEqualTypeOf<[string, ...Opts]>();
    expectTypeOf<Parameters<C["classes"]["retrieve"]>>().toEqualTypeOf<[string, string, ...Opts]>();
    expectTypeOf<Parameters<C["classes"]["update"]>>().toEqualTypeOf<[string, string, ClassUpdateInput, ...Opts]>();
    expectTypeOf<Parameters<C["classes"]["del"]>>().toEqualTypeOf<[string, string, ...Opts]>();
    expectTypeOf<Parameters<C["oralAssessments"]["list"]>>().toEqualTypeOf<[ListFilter?, ...Opts]>();
    expectTypeOf<Parameters<C["students"]["createSignInToken"]>>().toEqualTypeOf<[SignInTokenRequestInput, ...Opts]>();
  });

  it("resolve to the answer's record, a list of them, or nothing for a DELETE", () => {
    expectTypeOf<ReturnType<C["courses"]["retrieve"]>>().toEqualTypeOf<Promise<WithMeta<Course>>>();
    expectTypeOf<ReturnType<C["courses"]["list"]>>().toEqualTypeOf<Promise<WithMeta<Course[]>>>();
    expectTypeOf<ReturnType<C["classes"]["update"]>>().toEqualTypeOf<Promise<WithMeta<Class>>>();
    expectTypeOf<ReturnType<C["classes"]["del"]>>().toEqualTypeOf<Promise<WithMeta<undefined>>>();
    expectTypeOf<ReturnType<C["students"]["createSignInToken"]>>().toEqualTypeOf<Promise<WithMeta<SignInToken>>>();
  });

  it("agree with the exported ExamResource for both exam kinds, both ways", () => {
    expectTypeOf<C["oralAssessments"]>().toEqualTypeOf<ExamResource<OralAssessment, OralAssessmentCreateInput, OralAssessmentUpdateInput>>();
    expectTypeOf<C["roleplays"]>().toEqualTypeOf<ExamResource<Roleplay, RoleplayCreateInput, RoleplayUpdateInput>>();
  });

  it("every endpoint of the table is a method of the client at run time, and nothing else is", () => {
    const client = createPlatformClient({ apiKey: TEST_KEY, baseUrl: "http://127.0.0.1:9" });
    try {
      for (const spec of Object.values(ENDPOINTS)) {
        const resource = (client as unknown as Record<string, Record<string, unknown>>)[spec.resource];
        expect(typeof resource?.[spec.action], `${spec.resource}.${spec.action}`).toBe("function");
      }
      const fromTable = new Set(Object.values(ENDPOINTS).map((s) => `${s.resource}.${s.action}`));
      const resources = [...new Set(Object.values(ENDPOINTS).map((s) => s.resource))];
      const methods = resources.flatMap((r) => Object.keys((client as unknown as Record<string, object>)[r]!).map((a) => `${r}.${a}`));
      // `issueSignInToken` is the one method that is not an entry of its own (the launch's fast path).
      expect(methods.filter((m) => !fromTable.has(m))).toEqual(["students.issueSignInToken"]);
    } finally {
      client.close();
    }
  });
});
