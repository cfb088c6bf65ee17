/** Types for fuzz-cases.js, so the TypeScript fuzz test can import it. */
import type fc from "fast-check";

export interface FuzzCase { method: string; path: string; headers: Record<string, string>; body?: string }
export const badId: fc.Arbitrary<string>;
export const malformedId: fc.Arbitrary<string>;
export function invalidRequest(ids: { courseId: string; classId: string; examId: string }): fc.Arbitrary<FuzzCase>;
export function malformedPathRequest(): fc.Arbitrary<FuzzCase>;
export function wrongAnswer(status: number, contentType: string | undefined, body: string): string | undefined;

export function wrongAnswerFor(path: string, status: number, contentType: string | undefined, body: string): string | undefined;
