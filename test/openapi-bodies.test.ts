/**
 * The OpenAPI document's request bodies against the zod schemas behind them: a body valid
 * by the document is accepted by the router's schema, and the two agree on every body
 * generated from the document (test/support/openapi-bodies.ts).
 */
import { describe, expect, it } from "vitest";
import { CourseUpdate, OralAssessmentCreate } from "../src/platform/schemas.js";
import { CROSS_FIELD_RULES, objectsFor, ZOD_FOR } from "./support/openapi-bodies.js";
import { doc, validate, type Json } from "./support/openapi-schema.js";

describe("the OpenAPI document", () => {
  it("uses only request-body schemas that have a zod schema behind them", () => {
    const used = new Set<string>();
    for (const item of Object.values(doc.paths)) {
      for (const op of Object.values(item)) {
        const ref = ((op.requestBody as Json | undefined)?.content as Record<string, Json> | undefined)?.["application/json"]?.schema as Json | undefined;
        if (ref) used.add(String(ref.$ref).split("/").pop()!);
      }
    }
    expect([...used].sort()).toEqual(Object.keys(ZOD_FOR).sort());
  });

  describe.each(Object.keys(ZOD_FOR))("request body %s", (name) => {
    const schema = doc.components.schemas[name]!;
    const zod = ZOD_FOR[name]!;

    it("its examples are valid by the document and accepted by zod", () => {
      const examples = (schema.examples ?? []) as Json[];
      expect(examples.length).toBeGreaterThan(0);
      for (const example of examples) {
        expect(validate(schema, example)).toEqual([]);
        expect(zod.safeParse(example).success).toBe(true);
      }
    });

    it("a body valid by the document is accepted by zod, and the two agree on every generated body", () => {
      const rule = CROSS_FIELD_RULES[name];
      if (rule) expect(String(schema.description)).toMatch(rule.described);
      const bodies = objectsFor(schema).filter((body) => !rule?.broken(body));
      let valid = 0;
      for (const body of bodies) {
        const docErrors = validate(schema, body);
        const parsed = zod.safeParse(body);
        if (docErrors.length === 0) {
          valid += 1;
          expect(parsed.success, `doc-valid body refused by zod: ${JSON.stringify(body)}: ${parsed.error?.message}`).toBe(true);
        } else {
          expect(parsed.success, `zod accepts a body the document refuses (${docErrors.join("; ")}): ${JSON.stringify(body)}`).toBe(false);
        }
      }
      expect(valid).toBeGreaterThan(3);
      expect(bodies.length - valid).toBeGreaterThan(0);
    });

    it("lets unknown fields through, as the platform's loose objects do", () => {
      const example = { ...((schema.examples as Json[])[0]!), examDescription: "kept" };
      expect(validate(schema, example)).toEqual([]);
      expect((zod.parse(example) as Json).examDescription).toBe("kept");
    });
  });

  it("accepts, like zod, an assessment without questions (the platform generates one), refuses an empty list and an empty course update", () => {
    const assessment = doc.components.schemas.OralAssessmentCreate!;
    for (const body of [{ name: "x", classId: "c" }, { name: "x", classId: "c", examType: "Personalized" }]) {
      expect(validate(assessment, body)).toEqual([]);
      expect(OralAssessmentCreate.safeParse(body).success).toBe(true);
    }
    const empty = { name: "x", classId: "c", examType: "Generic", questions: [] };
    expect(validate(assessment, empty)).not.toEqual([]);
    expect(OralAssessmentCreate.safeParse(empty).success).toBe(false);
    expect(validate(doc.components.schemas.CourseUpdate!, {})).not.toEqual([]);
    expect(CourseUpdate.safeParse({}).success).toBe(false);
  });
});
