/**
 * The package's name and version, for the `User-Agent` of its calls to other servers
 * (an LMS's token and service endpoints). Written here rather than read from
 * package.json at run time: the ESM and CommonJS builds sit at different depths, and a
 * bundler may drop the file. test/core/package-info.test.ts keeps it equal to package.json.
 */
export const PACKAGE_NAME = "express-oral-assessments";
export const PACKAGE_VERSION = "0.1.0";

/** `express-oral-assessments/<version>`, then the integrator's own product and contact when given. */
export function userAgentOf(extra?: string): string {
  return `${PACKAGE_NAME}/${PACKAGE_VERSION}${extra ? ` ${extra}` : ""}`;
}
