/** Types of schools.js, for the TypeScript tests. */
export interface DemoSchool {
  /** The organization id the router scopes this school's records by. */
  readonly id: string;
  /** Shown in the pages' header. */
  readonly name: string;
}

export declare const SCHOOLS: readonly DemoSchool[];
