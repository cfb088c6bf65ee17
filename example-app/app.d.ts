/** Types of app.js, for the TypeScript tests that start the example app. */
import type { Express } from "express";
import type { Logger, OralAssessmentsRouter, OralStore, PlatformClient } from "express-oral-assessments";
import type { Roster } from "./roster.js";
import type { DemoUsers } from "./users.js";

export declare const MOUNT_PATH: "/oral";

/** The path when `value` is a path on this site, else undefined. */
export declare function safeReturnTo(value: unknown): string | undefined;

export interface ExampleAppOptions {
  platform: PlatformClient;
  /** Custom exam domain; unset → the platform's own host. */
  examHost?: string;
  /** Default: memoryStore(). */
  store?: OralStore;
  /** Default: demo users with random passwords. */
  users?: DemoUsers;
  /** Default: createRoster(users). */
  roster?: Roster;
  /** Default: random at every start. */
  sessionSecret?: string;
  /** Default false. */
  secureCookies?: boolean;
  logger?: Partial<Logger>;
}

export declare function createExampleApp(options: ExampleAppOptions): Express & { locals: { oral: OralAssessmentsRouter } };
