/** Types of roster.js, for the TypeScript tests. */
import type { DemoUser, DemoUsers } from "./users.js";

export interface Roster {
  has(classId: string, userId: string): boolean;
  add(classId: string, userId: string): boolean;
  studentsOf(classId: string): DemoUser[];
  /** The students of this school (its id) on every class's roster, and on none. */
  summary(school: string): { everyClass: DemoUser[]; noClass: DemoUser[] };
}

export declare function createRoster(users: DemoUsers): Roster;
