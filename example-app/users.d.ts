/** Types of users.js, for the TypeScript tests. */
export interface DemoUser {
  readonly id: string;
  readonly username: string;
  readonly role: "instructor" | "student";
  /** Id of the user's school (schools.js): the organization the router acts for. */
  readonly school: string;
  readonly email: string;
  readonly firstName: string;
  readonly lastName: string;
  /** On no class's roster. */
  readonly outsider?: boolean;
}

export interface DemoUsers {
  all(): readonly DemoUser[];
  findById(id: string): DemoUser | undefined;
  findByUsername(username: string): DemoUser | undefined;
  passwordOf(username: string): string | undefined;
  verify(username: unknown, password: unknown): DemoUser | undefined;
  displayName(user: DemoUser): string;
}

export declare function createDemoUsers(options?: { password?: string; passwords?: Record<string, string> }): DemoUsers;
