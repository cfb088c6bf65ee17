/** Types of lms.js, for the TypeScript tests. */
import type { OralAssessmentsOptions } from "express-oral-assessments";
import type { LmsEmulator } from "express-oral-assessments/emulator";

export interface ExampleLms {
  lms: LmsEmulator;
  /** The school the LMS's deployment launches for. */
  school: string;
  lti: NonNullable<OralAssessmentsOptions["lti"]>;
}

export declare function startExampleLms(options: { school: string; port?: number }): Promise<ExampleLms>;
