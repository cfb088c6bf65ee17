/** Types of app.js, for the TypeScript tests that start the example app. */
import type { Express } from "express";
import type { Logger, OralAssessmentsOptions, OralAssessmentsRouter, OralStore, PlatformEnv } from "express-oral-assessments";
import type { Roster } from "./roster.js";
import type { DemoUsers } from "./users.js";

export declare const MOUNT_PATH: "/oral";

/** The path when `value` is a path on this site, else undefined. */
export declare function safeReturnTo(value: unknown): string | undefined;

/** One school: its organization on the platform. */
export interface ExampleSchool {
  /** The organization id; users' `school` names it. */
  id: string;
  /** Shown in the pages' header. */
  name: string;
  apiKey: string;
  baseUrl: string;
  /** Its custom exam domain; unset → the platform's own host. */
  examHost?: string;
  env?: PlatformEnv;
}

export interface ExampleAppOptions {
  /** Non-empty; ids unique. */
  schools: ExampleSchool[];
  /** Options of the clients the router builds per school. Default: the router's. */
  organizationClient?: OralAssessmentsOptions["organizationClient"];
  /** Default: memoryStore(). */
  store?: OralStore;
  /** Default: demo users with random passwords. */
  users?: DemoUsers;
  /** Default: createRoster(users). */
  roster?: Roster;
  /** Default: random at every start. */
  sessionSecret?: string;
  /** Mark the session cookie Secure: true always, false never. Default "auto": when the request came over https. */
  secureCookies?: boolean | "auto";
  /** Express's "trust proxy" setting (behind a TLS-terminating proxy). Default false. */
  trustProxy?: boolean | number | string;
  logger?: Partial<Logger>;
  /** An LMS this app is an LTI tool of (lms.js): the router's `lti` option and the school its deployment launches for. Default: none. */
  lms?: { school: string; lti: NonNullable<OralAssessmentsOptions["lti"]> };
}

export declare function createExampleApp(options: ExampleAppOptions): Express & { locals: { oral: OralAssessmentsRouter } };
