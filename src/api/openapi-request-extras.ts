/**
 * The words and examples of the OpenAPI document's request schemas that the zod schemas
 * cannot carry (descriptions, examples, `minProperties` for a refinement), by component
 * name. Split from `openapi-components.ts` to keep each file to one concern.
 */
type JsonSchema = Record<string, unknown>;

/** Example texts long enough for the platform's minimums (150 and 300 characters). */
const ROLEPLAY_SCENARIO_EXAMPLE =
  "You work the evening shift at a busy community pharmacy. A patient arrives with a new prescription for an " +
  "antibiotic and several questions about taking it alongside the medicines they already use every day.";
const ROLEPLAY_DETAILS_EXAMPLE =
  "Play a worried but polite patient in their sixties who takes a blood thinner and a daily vitamin. Ask about " +
  "food, alcohol and missed doses. Answer questions about your history honestly but briefly, and only volunteer " +
  "the blood thinner if the student asks about other medicines. Keep replies to two or three sentences and stay in role.";

/** The request schemas' words and examples the zod schemas cannot carry, by component name. */
export function requestExtras(): Record<string, JsonSchema> {
  return {
    CourseCreate: { examples: [{ name: "Biology 101", level: "undergraduate" }] },
    // zod: `.refine(body => Object.keys(body).length > 0)`.
    CourseUpdate: { minProperties: 1, description: "The fields to change; at least one.", examples: [{ name: "Biology 101 (autumn)" }] },
    ClassCreate: {
      description: "A class of a course. Only `name` is required; `endDate` must not be before `startDate`. " +
        "Without `classMode` the platform applies its own default (`in-person` per its reference).",
      examples: [{ name: "Group A", classMode: "online", startDate: "2026-09-01", endDate: "2026-12-20" }],
    },
    ClassUpdate: { minProperties: 1, description: "The fields to change; at least one. `endDate` must not be before `startDate`.", examples: [{ classMode: "hybrid" }] },
    OralAssessmentCreate: {
      description:
        "An oral assessment of a class. `duration` is in seconds. Without `questions` the platform generates a " +
        "fallback question; given, the list holds at least one, and a question's `id` is generated when missing. " +
        "Fields the platform accepts beyond these pass through untouched.",
      examples: [{ name: "Cell biology oral", classId: "cls_123", duration: 600, examType: "Generic", questions: [{ text: "Explain osmosis." }] }],
    },
    OralAssessmentUpdate: { minProperties: 1, description: "The fields to change; at least one.", examples: [{ duration: 900 }] },
    RoleplayCreate: {
      description: "A role-play of a class. `roleplayScenario` is 150–3000 characters, `roleplayScenarioDetails` 300–6000 " +
        "(after trimming); `roleplayDuration` is in seconds (platform default 600).",
      examples: [{
        name: "Pharmacy counselling", classId: "cls_123", roleplayStudentRole: "Pharmacist", roleplayCoralRole: "Patient",
        roleplayScenario: ROLEPLAY_SCENARIO_EXAMPLE, roleplayScenarioDetails: ROLEPLAY_DETAILS_EXAMPLE, roleplayDuration: 600,
      }],
    },
    RoleplayUpdate: {
      minProperties: 1, description: "The fields to change; at least one. The length limits apply to the texts given.",
      examples: [{ roleplayDuration: 900 }],
    },
  };
}
