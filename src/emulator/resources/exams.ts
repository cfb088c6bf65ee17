/**
 * The two exam kinds: `/oral-assessments[/:id]` and `/roleplay[/:id]`. Same shape: the
 * class named in the body must be this organization's, in this environment; lists take
 * an optional `?classId=`; updates are partial; the reference's defaults are applied.
 */
import type { z } from "zod";
import { ENDPOINTS } from "../../platform/endpoints.js";
import type { RecordTable } from "../records.js";
import type { EmulatorState, JsonRecord } from "../state.js";
import { ownRecord, param, validate, withDefaults, type ApiCall, type Handler } from "./support.js";

/** The reference's defaults for an oral assessment's optional fields. */
export const ORAL_ASSESSMENT_DEFAULTS: JsonRecord = {
  duration: 600, examType: "Generic", examDescription: "", instructions: "", language: "en",
  isDraft: false, isGraded: true, isOpenBook: false, isAllowRetake: false,
  hideEvaluationFromStudent: false, hideGradeFromStudent: false,
  evaluationDifficulty: "Practice", evaluationStrategy: "ai-rubric",
};

export const ROLEPLAY_DEFAULTS: JsonRecord = { roleplayDuration: 600 };

/**
 * The question the platform generates when an assessment has none. The reference does
 * not give its wording; ids are strings per its example (`"1"`).
 */
export function fallbackQuestions(exam: JsonRecord): { id: string; text: string }[] {
  return [{ id: "1", text: `Explain, in your own words, what you know about ${String(exam.name)}.` }];
}

interface ExamKind {
  what: string;
  table: (state: EmulatorState) => RecordTable;
  create: z.ZodType<JsonRecord & { classId: string }>;
  update: z.ZodType<JsonRecord & { classId?: string }>;
  defaults: (body: JsonRecord) => JsonRecord;
}

function examHandlers(kind: ExamKind) {
  const classOf = (call: ApiCall, classId: string) =>
    ownRecord(call.state.classes.get(classId), call.org, "Class", classId, "classId");
  const exam = (call: ApiCall) => ownRecord(kind.table(call.state).get(param(call)), call.org, kind.what, param(call));

  const create: Handler = (call) => {
    const input = validate(kind.create, call.body);
    const cls = classOf(call, input.classId);
    const body = withDefaults(input, kind.defaults(input));
    return { status: 201, data: kind.table(call.state).insert(call.org, body, { classId: cls._id, courseId: cls.courseId }) };
  };
  const list: Handler = (call) => {
    const classId = call.query.get("classId");
    return { status: 200, data: kind.table(call.state).list((r, org) => org === call.org && (classId === null || r.classId === classId)) };
  };
  const get: Handler = (call) => ({ status: 200, data: exam(call) });
  const update: Handler = (call) => {
    exam(call);
    const changes = validate(kind.update, call.body);
    // Moving an exam to another class: that class must be this organization's too.
    const own = changes.classId === undefined ? {} : { classId: changes.classId, courseId: classOf(call, changes.classId).courseId };
    return { status: 200, data: kind.table(call.state).update(param(call), changes, own) };
  };
  const del: Handler = (call) => {
    exam(call);
    kind.table(call.state).delete(param(call));
    return { status: 204 };
  };
  return { create, list, get, update, del };
}

const oral = examHandlers({
  what: "Oral assessment", table: (s) => s.assessments,
  create: ENDPOINTS.createOralAssessment.body, update: ENDPOINTS.updateOralAssessment.body,
  defaults: (body) => ({ ...ORAL_ASSESSMENT_DEFAULTS, questions: fallbackQuestions(body) }),
});
const roleplay = examHandlers({
  what: "Role-play", table: (s) => s.roleplays,
  create: ENDPOINTS.createRoleplay.body, update: ENDPOINTS.updateRoleplay.body, defaults: () => ROLEPLAY_DEFAULTS,
});

export const examHandlersAll = {
  createOralAssessment: oral.create, listOralAssessments: oral.list, retrieveOralAssessment: oral.get,
  updateOralAssessment: oral.update, deleteOralAssessment: oral.del,
  createRoleplay: roleplay.create, listRoleplays: roleplay.list, retrieveRoleplay: roleplay.get,
  updateRoleplay: roleplay.update, deleteRoleplay: roleplay.del,
};
