/**
 * Where each exam kind lives: the exam page on the exam host, and this router's launch
 * path (which the waiting page, the retry links and the login `returnTo` point back at).
 * The one place that knows a role-play's page is `/exam/{id}/roleplay`.
 */
import type { ExamKind } from "../../store/types.js";

/** `/exam/{id}` or `/exam/{id}/roleplay`, id encoded. */
export function examPagePath(kind: ExamKind, examId: string): string {
  const base = `/exam/${encodeURIComponent(examId)}`;
  return kind === "roleplay" ? `${base}/roleplay` : base;
}

/** The launch route of this exam, relative to where the router is mounted. */
export function launchPath(baseUrl: string, kind: ExamKind, examId: string): string {
  return `${baseUrl}/launch/${kind === "roleplay" ? "roleplay/" : ""}${encodeURIComponent(examId)}`;
}

/** The exam id of a launch request, whichever launch route it came through. */
export function launchedId(params: Record<string, unknown>): string {
  return String(params.examId ?? params.roleplayId ?? "");
}
