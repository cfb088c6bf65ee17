/**
 * The instructor API's routes, as data. Work in progress: the prefix list.
 */
export const INSTRUCTOR_PREFIXES: readonly string[] = ["/courses", "/oral-assessments", "/classes"];
