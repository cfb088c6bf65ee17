/**
 * The organizations (schools) the emulator stands in for, from the options: each with an
 * id, a name, its keys and, when given through `organizations`, an exam host of its own.
 *
 * Without `organizations` there is one, `default`, exactly as before organizations existed:
 * its keys are `testKeys`/`liveKeys`, its exam pages are on the main origin, and
 * `otherOrgKeys` make a second, bare organization `other` (keys only, no exam host). With
 * `organizations`, those three options are refused rather than guessed at: which school
 * would they belong to?
 */
import type { ProblemList } from "../core/configuration-error.js";
import { isText } from "../core/text.js";
import { isWholeNumber } from "../core/whole-number.js";
import { isLiveKey, isTestKey, LIVE_KEY_FIX, TEST_KEY_FIX, type KeyRing } from "./keys.js";
import type { EmulatorOptions } from "./types.js";

export const DEFAULT_ORG = "default";
export const OTHER_ORG = "other";
const DEFAULT_ORG_NAME = "Default organization";

export interface ResolvedOrganization {
  id: string;
  name: string;
  /** The key `Emulator.testKey`/`organization(id).testKey` shows: the first given, else a random one. */
  testKey: string;
  liveKey: string;
  /**
   * Port of its own exam host (0: a free one). Undefined for the default organization,
   * whose exam pages are the main origin's.
   */
  examPort: number | undefined;
}

/** An organization id: short, and safe in a cookie name, a URL and a log line. */
const ORG_ID = /^[A-Za-z0-9_.-]{1,64}$/;

const shown = (value: unknown) => (typeof value === "string" ? JSON.stringify(value.slice(0, 80)) : typeof value);

/** Checks the organization options into `problems` and registers every key in `ring`. */
export function resolveOrganizations(options: EmulatorOptions, ring: KeyRing, problems: ProblemList): ResolvedOrganization[] {
  return options.organizations === undefined
    ? [defaultOrganization(options, ring)]
    : givenOrganizations(options, ring, problems);
}

function defaultOrganization(options: EmulatorOptions, ring: KeyRing): ResolvedOrganization {
  ring.add("testKeys", options.testKeys, (k) => (isTestKey(k) ? { env: "dev", org: DEFAULT_ORG } : undefined), TEST_KEY_FIX);
  ring.add("liveKeys", options.liveKeys, (k) => (isLiveKey(k) ? { env: "prod", org: DEFAULT_ORG } : undefined), LIVE_KEY_FIX);
  ring.add("otherOrgKeys", options.otherOrgKeys, (k) => ({ env: isLiveKey(k) ? "prod" : "dev", org: OTHER_ORG }),
    "Give non-empty key strings.");
  return {
    id: DEFAULT_ORG,
    name: DEFAULT_ORG_NAME,
    testKey: ring.firstOrNew(options.testKeys, { env: "dev", org: DEFAULT_ORG }),
    liveKey: ring.firstOrNew(options.liveKeys, { env: "prod", org: DEFAULT_ORG }),
    examPort: undefined,
  };
}

function givenOrganizations(options: EmulatorOptions, ring: KeyRing, problems: ProblemList): ResolvedOrganization[] {
  const list: unknown = options.organizations;
  const example = 'e.g. [{ id: "north", name: "North High" }, { id: "south", name: "South College" }]';
  if (!Array.isArray(list) || list.length === 0) {
    problems.add("organizations", "must be a non-empty array of { id, name }.", `List each school, ${example}, or omit it for one default organization.`);
    return [];
  }
  for (const option of ["testKeys", "liveKeys", "otherOrgKeys"] as const) {
    if (options[option] !== undefined) {
      problems.add(option, "cannot be combined with organizations.", "Give each organization its own testKeys/liveKeys (another organization replaces otherOrgKeys).");
    }
  }

  const ids = new Set<string>();
  const ports = new Set<number>([options.port ?? 0]);
  const out: ResolvedOrganization[] = [];
  list.forEach((entry: unknown, i) => {
    const at = `organizations[${i}]`;
    if (typeof entry !== "object" || entry === null || Array.isArray(entry)) {
      problems.add(at, "must be an object { id, name }.", `Describe each school, ${example}.`);
      return;
    }
    const { id, name, testKeys, liveKeys, examPort = 0 } = entry as Record<string, unknown>;
    if (typeof id !== "string" || !ORG_ID.test(id)) {
      problems.add(`${at}.id`, `must be 1–64 letters, digits, _ . or - (got ${shown(id)}).`, "Use a short slug such as north.");
    } else if (ids.has(id)) {
      problems.add(`${at}.id`, `${shown(id)} is used twice.`, "Give each organization its own id.");
    }
    if (typeof id === "string") ids.add(id);
    if (!isText(name, Infinity, { trim: true })) {
      problems.add(`${at}.name`, "must be a non-empty string.", "Give the school's name, e.g. North High.");
    }
    if (!isWholeNumber(examPort, 0, 65_535)) {
      problems.add(`${at}.examPort`, "must be a whole number from 0 to 65535.", "Omit it (or use 0) to pick a free port.");
    } else if (examPort !== 0 && ports.has(examPort)) {
      problems.add(`${at}.examPort`, `${examPort} is already the emulator's or another organization's port.`, "Give each exam host its own port, or 0.");
    } else {
      ports.add(examPort);
    }

    const org = String(id);
    ring.add(`${at}.testKeys`, testKeys, (k) => (isTestKey(k) ? { env: "dev", org } : undefined), TEST_KEY_FIX);
    ring.add(`${at}.liveKeys`, liveKeys, (k) => (isLiveKey(k) ? { env: "prod", org } : undefined), LIVE_KEY_FIX);
    out.push({
      id: org,
      name: String(name),
      testKey: ring.firstOrNew(Array.isArray(testKeys) ? (testKeys as string[]) : undefined, { env: "dev", org }),
      liveKey: ring.firstOrNew(Array.isArray(liveKeys) ? (liveKeys as string[]) : undefined, { env: "prod", org }),
      examPort: typeof examPort === "number" ? examPort : 0,
    });
  });
  return out;
}
