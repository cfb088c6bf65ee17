/**
 * Invalid requests for every instructor route, as fast-check arbitraries (property-based
 * generation and shrinking, rather than a hand-written list of bad inputs). Shared by the
 * soak (`npm run soak`, 10 000+ cases against the built package) and by
 * test/router/fuzz.test.ts (a few hundred against the sources).
 *
 * A case is `{ method, path, headers, body }` relative to the router's mount point, with
 * `path` already percent-encoded (so malformed encodings reach the server as sent). Every
 * case is invalid by construction: a bad id, body or header; never a valid request.
 */
import fc from "fast-check";

/** Ids the router must refuse (RecordId: 1-200 chars, no control characters, not a dot segment). */
export const badId = fc.oneof(
  fc.constantFrom("%2E", "%2E%2E", ".%2E"),
  fc.string({ minLength: 201, maxLength: 400 }).map((s) => encodeURIComponent(`x${s}`)),
  fc.tuple(fc.string({ maxLength: 10 }), fc.integer({ min: 0, max: 0x1f }), fc.string({ maxLength: 10 }))
    .map(([a, c, b]) => encodeURIComponent(`${a}${String.fromCharCode(c)}${b}`)),
);

/** Percent-encodings no decoder accepts (invalid UTF-8, truncated escapes). */
export const malformedId = fc.oneof(
  fc.constantFrom("%FF", "%C0%AE", "%E0%A4%A", "%", "%zz", "a%", "%ED%A0%80", "%F8%88%80%80%80"),
  fc.tuple(fc.string({ maxLength: 6 }), fc.integer({ min: 0x80, max: 0xff })).map(([s, b]) => `${encodeURIComponent(s)}%${b.toString(16).toUpperCase()}`),
);

/** JSON values of the wrong type for a field. */
const wrongType = fc.oneof(fc.integer(), fc.boolean(), fc.constant(null), fc.array(fc.integer(), { maxLength: 3 }), fc.dictionary(fc.string({ maxLength: 4 }), fc.integer(), { maxKeys: 2 }));
const blank = fc.constantFrom("", " ", "\t\n");
const tooLong = (max) => fc.integer({ min: max + 1, max: max + 50 }).map((n) => "x".repeat(n));
const badDate = fc.oneof(fc.constantFrom("2026-13-01", "tomorrow", "2026-09-01T09:00:00", "", "2026-02-30T00:00:00Z"), fc.integer());

/** Nested past the pass-through bound. */
const deep = fc.integer({ min: 33, max: 400 }).map((n) => {
  let v = 1;
  for (let i = 0; i < n; i++) v = { d: v };
  return v;
});

/** `base` with one field replaced by a bad value, or removed when `value` is undefined. */
const spoil = (base, fields) => fc.constantFrom(...Object.keys(fields)).chain((field) =>
  fields[field].map((value) => {
    const body = { ...base };
    if (value === undefined) delete body[field];
    else body[field] = value;
    return body;
  }));

const courseBody = spoil({ name: "Course" }, {
  name: fc.oneof(fc.constant(undefined), wrongType, blank, tooLong(200)),
  level: fc.oneof(wrongType, blank, tooLong(100)),
  extra: deep,
});
const courseUpdate = fc.oneof(fc.constant({}), spoil({ name: "Renamed" }, { name: fc.oneof(wrongType, blank, tooLong(200)), extra: deep }));
const classBody = spoil({ name: "Class", startDate: "2026-09-01", endDate: "2026-12-01" }, {
  name: fc.oneof(fc.constant(undefined), wrongType, blank),
  // Dates are optional on the platform: a missing one is valid, a bad one is not.
  startDate: badDate,
  endDate: fc.oneof(badDate, fc.constant("2026-01-01")),
  classMode: fc.oneof(fc.string({ maxLength: 8 }).filter((s) => !["in-person", "online", "hybrid"].includes(s)), wrongType),
  extra: deep,
});
const examBody = (classId) => spoil({ name: "Exam", classId, questions: [{ text: "Q" }] }, {
  name: fc.oneof(fc.constant(undefined), wrongType, blank),
  classId: fc.oneof(fc.constant(undefined), fc.integer(), fc.constantFrom("", ".", "..", "a\nb", "x".repeat(201))),
  duration: fc.oneof(fc.integer({ max: 0 }), fc.integer({ min: 86_401 }), fc.double({ min: 0.1, max: 99, noInteger: true }), fc.string()),
  examType: fc.oneof(fc.string({ maxLength: 6 }), wrongType),
  questions: fc.oneof(fc.constant([]), fc.array(wrongType, { minLength: 1, maxLength: 3 }), fc.constant([{ text: "" }]), deep.map((d) => [{ text: "Q", hint: d }])),
  extra: deep,
});
const prepareBody = spoil({ startAt: "2026-09-01T09:00:00Z", roster: [{ email: "a@b.example", firstName: "A", lastName: "B", orgInternalId: "a" }] }, {
  startAt: fc.oneof(fc.constant(undefined), badDate),
  roster: fc.oneof(fc.constant([]), wrongType.filter((v) => v !== null), fc.constant([{ email: "not-an-email", firstName: "A", lastName: "B", orgInternalId: "a" }])),
});

/** Bodies that are not JSON objects at all, sent as application/json. */
const notJson = fc.oneof(fc.constantFrom("{", "{\"name\":", "[1,", "nul", "{'a':1}", "\u0000"), fc.string({ maxLength: 20 }).filter((s) => { try { JSON.parse(s); return false; } catch { return true; } }));
const nonObjectJson = fc.oneof(fc.constantFrom("[]", "1", "\"x\"", "true"));

/**
 * Every instructor route with invalid input. `ids` are records that exist (so a case
 * that only breaks the body reaches validation, not a 404).
 */
export function invalidRequest(ids) {
  const json = (method, path, body) => ({ method, path, headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  const withId = (method, pathOf, body) => fc.tuple(badId, body ?? fc.constant(undefined)).map(([id, b]) => ({
    method, path: pathOf(id), headers: b === undefined ? {} : { "content-type": "application/json" }, body: b === undefined ? undefined : JSON.stringify(b),
  }));
  const raw = (method, path) => fc.tuple(notJson, nonObjectJson).chain(([bad, nonObject]) =>
    fc.constantFrom(
      { method, path, headers: { "content-type": "application/json" }, body: bad },
      { method, path, headers: { "content-type": "application/json" }, body: nonObject },
    ));
  return fc.oneof(
    courseBody.map((b) => json("POST", "/courses", b)),
    courseUpdate.map((b) => json("PUT", `/courses/${ids.courseId}`, b)),
    classBody.map((b) => json("POST", `/courses/${ids.courseId}/classes`, b)),
    examBody(ids.classId).map((b) => json("POST", "/oral-assessments", b)),
    prepareBody.map((b) => json("POST", `/oral-assessments/${ids.examId}/prepare`, b)),
    withId("GET", (id) => `/courses/${id}`),
    withId("PUT", (id) => `/courses/${id}`, fc.constant({ name: "X" })),
    withId("DELETE", (id) => `/courses/${id}`),
    withId("POST", (id) => `/courses/${id}/classes`, fc.constant({ name: "K", startDate: "2026-09-01", endDate: "2026-12-01" })),
    withId("GET", (id) => `/courses/${id}/classes`),
    withId("GET", (id) => `/classes/${id}/oral-assessments`),
    raw("POST", "/courses"),
    raw("PUT", `/courses/${ids.courseId}`),
    raw("POST", `/courses/${ids.courseId}/classes`),
    raw("POST", "/oral-assessments"),
  );
}

/** The router findings (fixed in a later step): malformed percent-encoding in an id. */
export function malformedPathRequest() {
  return fc.tuple(malformedId, fc.constantFrom(
    (id) => ({ method: "GET", path: `/courses/${id}` }),
    (id) => ({ method: "GET", path: `/courses/${id}/classes` }),
    (id) => ({ method: "GET", path: `/classes/${id}/oral-assessments` }),
    (id) => ({ method: "GET", path: `/oral-assessments/${id}/prepare` }),
    (id) => ({ method: "GET", path: `/launch/${id}` }),
  )).map(([id, make]) => ({ ...make(id), headers: {}, body: undefined }));
}

/**
 * The same for any path: the browser's launch route answers a bad link with a 400 HTML
 * page (students get pages, not problem+json); every other route as `wrongAnswer` says.
 */
export function wrongAnswerFor(path, status, contentType, body) {
  if (!/^\/launch\//.test(path)) return wrongAnswer(status, contentType, body);
  if (status >= 500) return `status ${status}`;
  if (status !== 400 || !/^text\/html/.test(contentType ?? "")) return `status ${status}, ${contentType} for a bad launch link (expected a 400 page)`;
  return undefined;
}

/**
 * What a correct answer to an invalid request looks like: below 500, problem+json, and a
 * 400 names at least one field. Returns the problem, or undefined when the answer is right.
 */
export function wrongAnswer(status, contentType, body) {
  if (status >= 500) return `status ${status}`;
  if (status < 400) return `status ${status} for invalid input`;
  if (!/^application\/problem\+json/.test(contentType ?? "")) return `content-type ${contentType}`;
  let problem;
  try {
    problem = JSON.parse(body);
  } catch {
    return "a problem body that is not JSON";
  }
  if (problem.status !== status) return "problem.status differs from the HTTP status";
  if (status === 400 && !(Array.isArray(problem.errors) && problem.errors.length > 0 && problem.errors.every((e) => typeof e.path === "string" && e.path.length > 0))) {
    return "a 400 that names no field";
  }
  return undefined;
}
