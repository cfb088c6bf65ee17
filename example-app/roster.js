/**
 * Which students are in which class. The plugin leaves this to the host app and asks
 * through `canLaunch(req, { classId, … })`; a real LMS would look at its enrolments table.
 *
 * The demo keeps it simple: every student except the outsider is enrolled in every class
 * of their school, including classes created after start-up, and a class's roster can be
 * extended with `add` (the outsider is still refused there, so the 403 path stays
 * demonstrable). `has` needs no school: the router acts for the signed-in user's school
 * (the app's `organization`), and an exam of another school is unknown to it (a 404)
 * before `canLaunch` is asked.
 */
export function createRoster(users) {
  const students = users.all().filter((u) => u.role === "student");
  const everywhere = new Set(students.filter((u) => !u.outsider).map((u) => u.id));
  const outsiders = new Set(students.filter((u) => u.outsider).map((u) => u.id));
  /** classId → user ids enrolled in that class only. */
  const extra = new Map();

  return {
    /** Whether the user may take the exams of this class. */
    has(classId, userId) {
      if (typeof classId !== "string" || typeof userId !== "string" || outsiders.has(userId)) return false;
      return everywhere.has(userId) || (extra.get(classId)?.has(userId) ?? false);
    },
    /** Enrols a (non-outsider) student in one class. Returns whether they are now enrolled. */
    add(classId, userId) {
      if (outsiders.has(userId) || !students.some((u) => u.id === userId)) return false;
      if (!extra.has(classId)) extra.set(classId, new Set());
      extra.get(classId).add(userId);
      return true;
    },
    /** The students on this class's roster. */
    studentsOf(classId) {
      return students.filter((u) => this.has(classId, u.id));
    },
    /** A school's students on every roster of the school, and on none (for the dashboard's explanation). */
    summary(school) {
      const ofSchool = students.filter((u) => u.school === school);
      return {
        everyClass: ofSchool.filter((u) => everywhere.has(u.id)),
        noClass: ofSchool.filter((u) => outsiders.has(u.id)),
      };
    },
  };
}
