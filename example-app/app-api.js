/**
 * The app's own JSON endpoints (the plugin's list routes are for instructors): who is
 * signed in, the roster note of the dashboard, and a student's exams.
 */
import { requireUserApi } from "./guards.js";

/**
 * @param {import("express").Express} app
 * @param {{ oral: object, store: object, users: object, roster: object, schoolOf: (user: object) => object|undefined, mountPath: string }} context
 */
export function addAppApi(app, { oral, store, users, roster, schoolOf, mountPath }) {
  app.get("/app/me", requireUserApi, (req, res) => {
    const u = req.user;
    const school = schoolOf(u);
    res.json({
      data: {
        id: u.id, username: u.username, role: u.role, name: users.displayName(u), email: u.email,
        school: school ? { id: school.id, name: school.name } : null,
      },
    });
  });

  app.get("/app/roster", requireUserApi, (req, res) => {
    if (req.user.role !== "instructor") return res.status(403).json({ error: "instructors only" });
    const { everyClass, noClass } = roster.summary(req.user.school);
    const brief = (u) => ({ id: u.id, username: u.username, name: users.displayName(u) });
    res.json({ data: { everyClass: everyClass.map(brief), noClass: noClass.map(brief) } });
  });

  /**
   * The signed-in student's exams: every assessment of every class whose roster has them,
   * from the router's records of the student's school (the store scopes them by
   * organization: the school's id comes first in every call).
   */
  app.get("/app/my-exams", requireUserApi, async (req, res, next) => {
    try {
      await oral.ready();
      const exams = [];
      const school = req.user.school;
      for (const course of await store.listCourses(school)) {
        for (const cls of await store.listClasses(school, course.id)) {
          if (!roster.has(cls.id, req.user.id)) continue;
          // Oral assessments and role-plays; each kind has its own launch route.
          for (const kind of ["oral", "roleplay"]) {
            for (const a of await store.listAssessments(school, cls.id, kind)) {
              const duration = kind === "oral" ? a.data.duration : a.data.roleplayDuration;
              exams.push({
                examId: a.id,
                kind,
                name: a.name,
                courseName: course.name,
                className: cls.name,
                duration: typeof duration === "number" ? duration : undefined,
                launchUrl: `${mountPath}/launch/${kind === "roleplay" ? "roleplay/" : ""}${encodeURIComponent(a.id)}`,
              });
            }
          }
        }
      }
      res.setHeader("Cache-Control", "no-store");
      res.json({ data: exams });
    } catch (error) {
      next(error);
    }
  });
}
