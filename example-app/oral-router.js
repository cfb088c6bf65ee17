/**
 * The plugin, mounted once for both schools: `organization` answers each request's school,
 * and the router builds a client per school and keeps each school's records apart.
 */
import { oralAssessments } from "express-oral-assessments";
import { layoutPage, PAGE_CSP, pageFor } from "./pages.js";

/** Where the plugin is mounted; the pages' scripts call `/oral/…`. */
export const MOUNT_PATH = "/oral";

/**
 * Mounts the plugin at MOUNT_PATH and returns it.
 * @param {import("express").Express} app
 * @param {object} options  createExampleApp's options (store, users, roster, logger, organizationClient, lms)
 *   with `schools` (id → school) and `schoolOf(user)` resolved
 */
export function mountOralAssessments(app, options) {
  const { schools, schoolOf, store, users, roster, logger } = options;
  /**
   * The school of a request through the LMS (under `/oral/lti/`): the LMS's, whoever is
   * signed in to this app in the same browser, since the LMS's one deployment names it.
   * (The router still checks that an exam link is followed under the school it was made for.)
   */
  const schoolOfRequest = (req) => (options.lms && req.originalUrl.startsWith(`${MOUNT_PATH}/lti/`) ? schools.get(options.lms.school) : schoolOf(req.user));

  // Mounted as the README's "Mount the router" shows (the same isInstructor, canLaunch and
  // loginUrl; test/readme.test.ts keeps the two in step), with one router for both
  // schools: instead of one `platform` and `examHost`, `organization` answers the
  // signed-in user's school, and the router builds a client per school and keeps each
  // school's records, launches and caches apart. Besides those: the in-memory store (the
  // embedded emulator forgets everything at exit), the way home, the app's own page
  // layout, and the app's logger.
  const oral = oralAssessments({
    organization: (req) => {
      const school = schoolOfRequest(req);
      if (!school) return undefined;
      const { id, apiKey, baseUrl, examHost, env } = school;
      return { id, apiKey, baseUrl, ...(examHost ? { examHost } : {}), ...(env ? { env } : {}) };
    },
    isInstructor: (req) => req.user?.role === "instructor",
    canLaunch: (req, { classId, via }) => via === "lti" || (req.user !== undefined && roster.has(classId, req.user.id)),
    loginUrl: "/login",
    store,
    // The way back on every plugin page: "/" sends each user to their own home page.
    homeUrl: "/",
    renderPage: (req, res, page) => {
      res.setHeader("Content-Security-Policy", PAGE_CSP);
      res.send(layoutPage(req.user ? users.displayName(req.user) : undefined, schoolOf(req.user)?.name, pageFor(req.user, page)));
    },
    logger,
    ...(options.organizationClient ? { organizationClient: options.organizationClient } : {}),
    // The router as the LMS's LTI tool: its routes under /oral/lti/ (login, launch, key set).
    ...(options.lms ? { lti: options.lms.lti } : {}),
  });
  app.use(MOUNT_PATH, oral);
  app.locals.oral = oral;
  return oral;
}
