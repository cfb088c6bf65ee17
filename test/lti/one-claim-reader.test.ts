/**
 * A launch's claims are read in one file (src/lti/launch/typed-launch.ts): no other file of the
 * tool names an LTI claim or indexes a claims object, so a claim alias is one edit, and
 * two readers cannot disagree (issue: the exam a link names was parsed twice, and course
 * binding let through what its own parser could not read). Claims are written, not read,
 * by the tool's own messages (the deep-linking response, the service token's client
 * assertion); the LMS emulator writes them as an LMS does.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..", "..");
const READER = "src/lti/launch/typed-launch.ts";
/** Files that name claims to write them (messages the tool signs), or that define the names. */
const WRITERS = new Set(["src/lti/shared/claims.ts", "src/lti/placement/deep-link-response.ts", "src/lti/lms/service-access.ts"]);

function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const path = `${dir}/${e.name}`;
    if (e.isDirectory()) return path === "src/emulator" ? [] : sources(path);
    return e.name.endsWith(".ts") ? [path] : [];
  });
}

/** A claim's name (`…/claim/…`), or the claim-name table imported. */
const NAMES_A_CLAIM = [/purl\.imsglobal\.org\/spec\/[\w-]+\/claim\//, /import \{[^}]*\b(CLAIM|LTI)\b[^}]*\} from "[./]*claims\.js"/];
/** A claims object read by hand: `claims[…]`, `claims.sub`, `forHooks[…]` (hooks get it whole). */
const READS_CLAIMS = /\b(claims|forHooks)(\?\.)?\[|\b(claims|forHooks)\??\.(?!js\b)[A-Za-z_]/;

describe("the one reader of a launch's claims", () => {
  const files = sources("src").filter((f) => f !== READER);

  it("is the only file naming an LTI claim (besides the names' table and the tool's own signed messages)", () => {
    const naming = files.filter((f) => !WRITERS.has(f) && NAMES_A_CLAIM.some((p) => p.test(readFileSync(join(ROOT, f), "utf8"))));
    expect(naming).toEqual([]);
  });

  it("is the only file indexing a claims object", () => {
    const reading = files.filter((f) => !WRITERS.has(f) && READS_CLAIMS.test(readFileSync(join(ROOT, f), "utf8")));
    expect(reading).toEqual([]);
  });

  it("sees a hand-written claim read (the check itself works)", () => {
    expect(READS_CLAIMS.test(`const id = (launch.claims[CLAIM.context] as { id?: unknown }).id;`)).toBe(true);
    expect(READS_CLAIMS.test(`const sub = String(offer.claims.sub ?? "");`)).toBe(true);
    expect(NAMES_A_CLAIM.some((p) => p.test(`const AGS = "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint";`))).toBe(true);
    expect(READS_CLAIMS.test(`import { CLAIM } from "./claims.js";`)).toBe(false);
  });
});
