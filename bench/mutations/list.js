/**
 * The mutations `npm run mutations` makes, one check each (docs/lab/mutations.md). `find`
 * must occur exactly once in `file`; `replace` is what the check becomes; `tests` are the
 * files that must fail with it (run alone, express5). Keep `why` to what the check
 * protects: it is printed when a mutation survives. `equivalent` says why a survivor changes
 * no behaviour a test could see (reported, not counted as a failure).
 */
const COPY = ["test/router/lti-copy-consent.test.ts", "test/router/lti-pinned-forms.test.ts"];
const BINDING = ["test/router/lti-course-binding.test.ts", "test/router/lti-copy-consent.test.ts", "test/router/lti-pinned-checks.test.ts", "test/router/lti-pinned-forms.test.ts"];
const PREPARE = ["test/lti/prepare-course.test.ts"];
const GRADEBOOK = ["test/lti/grade-safe.test.ts", "test/lti/gradebook.test.ts", "test/lti/pinned-gradebook.test.ts", "test/lti/gradebook-delivery.test.ts",
  "test/lti/gradebook-return.test.ts", "test/lti/line-item-origin.test.ts", "test/lti/gradebook-reads.test.ts", "test/lti/lms-gate-verdicts.test.ts"];
const LOGIN = ["test/router/lti-login-address.test.ts", "test/router/lti-login-jam.test.ts", "test/router/lti-login-flood.test.ts"];

export const MUTATIONS = [
  // The course offer's form (course-offer.ts): every input checked, the consent asked again.
  { id: "offer.id-format", file: "src/lti/placement/course-offer.ts", tests: COPY, why: "an offer id of any shape is looked up",
    equivalent: "an id of another shape finds no offer either (410): the check only keeps odd text out of the single-use store's keys",
    find: 'typeof body.offer === "string" && ID.test(body.offer) ? body.offer', replace: 'typeof body.offer === "string" ? body.offer' },
  { id: "offer.action-checked", file: "src/lti/placement/course-offer.ts", tests: COPY, why: "an action other than copy/use is taken as copy",
    find: 'if (action !== "copy" && action !== "use") return page(', replace: 'if (false) return page(' },
  { id: "offer.class-name-checked", file: "src/lti/placement/course-offer.ts", tests: COPY, why: "a copy with an empty or 201-character class name is made",
    find: 'if (action === "copy" && !isText(className, 200)) return', replace: 'if (false) return' },
  { id: "offer.use-asks-canLink", file: "src/lti/placement/course-offer.ts", tests: COPY, why: "a hand-made action=use links a course canLink refuses",
    find: "if (!(await binding.mayLink(offer.claims, offer.org, offer.course, offer.exam))) {", replace: "if (false) {" },
  { id: "offer.use-used-up", file: "src/lti/placement/course-offer.ts", tests: COPY, why: "an offer used for 'use' can be posted again",
    find: 'if ((await deps.offers.take(offerKey(id))) === undefined) return page(res, 410, "This choice has expired", "This page was used already. Open the link from your course again.");\n      await binding.link(',
    replace: 'await binding.link(' },
  { id: "offer.copy-asks-canCopy", file: "src/lti/placement/course-offer.ts", tests: COPY, why: "a hand-made action=copy copies where canCopy refuses (discloses the questions)",
    find: "if (!(await binding.mayCopy(offer.claims, offer.org, offer.course, offer.exam))) {", replace: "if (false) {" },

  // Course binding (course-binding.ts): who may link and copy, and the learner's check.
  { id: "binding.default-canLink", file: "src/lti/placement/course-binding.ts", tests: BINDING, why: "an exam linked to no course is linkable by anyone (first come, first linked)",
    find: 'export const defaultCanLink = (linkedTo: LinkedTo): boolean => linkedTo === "this-course";', replace: 'export const defaultCanLink = (linkedTo: LinkedTo): boolean => linkedTo !== "another-course";' },
  { id: "binding.canLink-true-only", file: "src/lti/placement/course-binding.ts", tests: BINDING, why: "a canLink answering a truthy non-boolean links",
    find: "return (await settings.canLink(claims, contextOf(org, course, exam, known, \"link\"))) === true;", replace: "return Boolean(await settings.canLink(claims, contextOf(org, course, exam, known, \"link\")));" },
  { id: "binding.default-canCopy-same-user", file: "src/lti/placement/course-binding.ts", tests: BINDING, why: "any instructor of the LMS may copy an exam another placed",
    find: "ctx.linkedCourses.some((l) => l.issuer === ctx.course.issuer && l.linkedBy === sub)", replace: "ctx.linkedCourses.some((l) => l.issuer === ctx.course.issuer)" },
  { id: "binding.canCopy-overrides", file: "src/lti/placement/course-binding.ts", tests: BINDING, why: "an app's canCopy refusing is ignored when the default allows",
    find: "if (settings.canCopy) return (await settings.canCopy(claims, ctx)) === true;", replace: "if (settings.canCopy && (await settings.canCopy(claims, ctx)) === true) return true;" },
  { id: "binding.same-course-deployment", file: "src/lti/placement/course-binding.ts", tests: BINDING, why: "a link made under another deployment of the same LMS course counts as this course",
    find: "a.clientId === b.clientId && a.deploymentId === b.deploymentId && a.contextId === b.contextId", replace: "a.clientId === b.clientId && a.contextId === b.contextId" },
  { id: "binding.fails-closed", file: "src/lti/placement/course-binding.ts", tests: ["test/router/lti-typed-launch.test.ts", ...BINDING], why: "a link whose exam cannot be named passes the binding",
    find: "    if (!named) {\n      refuse(", replace: "    if (false) {\n      refuse(" },
  { id: "binding.learner-needs-link", file: "src/lti/placement/course-binding.ts", tests: BINDING, why: "a learner reaches an exam whose class is not linked to their course",
    find: "if (!course || !found || !(await store.getLtiCourseLink(org, course, found.classId))) {", replace: "if (!course || !found) {" },

  // The prepare form (prepare-course.ts): single use, bound to the browser, its inputs checked.
  { id: "prepare.form-id-format", file: "src/lti/services/prepare-course.ts", tests: PREPARE, why: "a form id of any shape is looked up",
    equivalent: "an id of another shape finds no form either (410): the check only keeps odd text out of the single-use store's keys",
    find: 'if (typeof id !== "string" || !ID.test(id)) return undefined;\n    const text = await deps.forms.peek(formKey(id));', replace: 'if (typeof id !== "string") return undefined;\n    const text = await deps.forms.peek(formKey(id));' },
  { id: "prepare.browser-bound", file: "src/lti/services/prepare-course.ts", tests: PREPARE, why: "a form posted from another browser reads the roster",
    find: "if (form.browserHash !== undefined && (browserId === undefined || shortHash(browserId) !== form.browserHash)) {", replace: "if (false) {" },
  { id: "prepare.browser-missing", file: "src/lti/services/prepare-course.ts", tests: PREPARE, why: "a form posted with no LTI cookie reads the roster",
    find: "(browserId === undefined || shortHash(browserId) !== form.browserHash)", replace: "(browserId !== undefined && shortHash(browserId) !== form.browserHash)" },
  { id: "prepare.start-checked", file: "src/lti/services/prepare-course.ts", tests: PREPARE, why: "a form without a start time prepares",
    find: 'if (!startAt) return page(res, 400, "When does the exam start?"', replace: 'if (false) return page(res, 400, "When does the exam start?"' },
  { id: "prepare.tz-bounded", file: "src/lti/services/prepare-course.ts", tests: PREPARE, why: "a time-zone offset beyond ±14 h is taken",
    find: "if (!isWholeNumber(offset, -14 * 60, 14 * 60)) return undefined;", replace: "" },
  { id: "prepare.one-read-in-flight", file: "src/lti/services/prepare-course.ts", tests: PREPARE, why: "two posts of one course's forms read the roster twice",
    find: 'if (!(await deps.forms.claim(readingKey(form), "1", readingMs))) return beingPrepared(res);', replace: "" },
  { id: "prepare.form-used-up", file: "src/lti/services/prepare-course.ts", tests: PREPARE, why: "a used form can be posted again",
    find: "if ((await deps.forms.take(formKey(found.id))) === undefined) {", replace: "if (false) {" },

  // The login limit's keying (login-limit.ts): per address, IPv6 by /64, never per registration.
  { id: "login.ipv6-by-64", file: "src/lti/options/login-limit.ts", tests: LOGIN, why: "rotating the host part of an IPv6 /64 gives a fresh bucket each login",
    find: "groups.slice(0, 4)", replace: "groups.slice(0, 8)" },
  { id: "login.ipv4-mapped", file: "src/lti/options/login-limit.ts", tests: LOGIN, why: "every IPv4-mapped address shares one bucket (one client jams them all), apart from its IPv4 form",
    find: "if (mapped) return mapped[1]!;", replace: "" },
  { id: "login.recent-launch-exempt", file: "src/lti/options/login-limit.ts", tests: LOGIN, why: "a school's address that launched is refused when someone shares its bucket",
    find: "if (d.allowed || (await this.recent.peek(launchedKey(ip))) !== undefined) return", replace: "if (d.allowed) return" },
  { id: "login.recent-per-address", file: "src/lti/options/login-limit.ts", tests: LOGIN, why: "one launch exempts every address",
    find: "const launchedKey = (ip: string) => `lti-launched:${addressKey(ip)}`;", replace: "const launchedKey = (_ip: string) => \"lti-launched:any\";" },
  { id: "login.counted", file: "src/lti/options/login-limit.ts", tests: LOGIN, why: "logins are never counted: no address is ever refused",
    find: "    await this.byAddress.record(\"address\", addressKey(ip));", replace: "" },

  // The gradebook's branches (src/lti/gradebook/): grade-safe posts, the LMS gate, the return guard, line item origins.
  { id: "gradebook.canvas-preserve-score", file: "src/lti/gradebook/entries.ts", tests: GRADEBOOK, why: "a status post clears a Canvas grade",
    find: "return { preserve_score: true, prioritize_non_tool_grade: true,", replace: "return { preserve_score: false, prioritize_non_tool_grade: true," },
  { id: "gradebook.canvas-no-new-attempt", file: "src/lti/gradebook/entries.ts", tests: GRADEBOOK, why: "a launch starts a new Canvas submission attempt",
    find: '...(s.activityProgress === "Started" ? { new_submission: false } : {})', replace: "" },
  { id: "gradebook.no-status-after-grade", file: "src/lti/gradebook/grade-safe.ts", tests: GRADEBOOK, why: "a status post is queued after a grade",
    find: "if (!previous.some((p) => p.score.scoreGiven !== undefined && p.state !== \"failed\" && sameLearner(p, e))) kept.push(e);", replace: "kept.push(e);" },
  { id: "gradebook.given-up-grade-not-counted", file: "src/lti/gradebook/grade-safe.ts", tests: GRADEBOOK, why: "a grade given up (never reached the LMS) silences the learner's later statuses",
    find: 'p.score.scoreGiven !== undefined && p.state !== "failed" && sameLearner(p, e)', replace: "p.score.scoreGiven !== undefined && sameLearner(p, e)" },
  { id: "gradebook.line-item-origin", file: "src/lti/gradebook/ags.ts", tests: GRADEBOOK, why: "the token goes to a line item id on another origin",
    find: "if (isServiceUrl(id, deps.loopbackHttp, new URL(source).origin)) return id;", replace: "if (typeof id === \"string\") return id;" },
  { id: "gradebook.grades-released-option", file: "src/lti/gradebook/ags.ts", tests: GRADEBOOK, why: "line items the tool makes release grades at once (Blackboard Ultra)",
    find: "gradesReleased: deps.settings.gradesReleased,", replace: "gradesReleased: true," },
  { id: "gradebook.pause-honoured", file: "src/lti/gradebook/lms-gate.ts", tests: GRADEBOOK, why: "an LMS's Retry-After pause is ignored",
    find: "if (Number.isFinite(paused) && paused > this.now()) {", replace: "if (false) {" },
  { id: "gradebook.pause-on-503", file: "src/lti/gradebook/lms-gate.ts", tests: GRADEBOOK, why: "a 503 with Retry-After does not pause the LMS",
    find: "(error.answer?.status !== 429 && error.answer?.status !== 503)", replace: "error.answer?.status !== 429" },
  { id: "gradebook.breaker-admits", file: "src/lti/gradebook/lms-gate.ts", tests: GRADEBOOK, why: "an open breaker lets posts through to a failing LMS",
    find: "if (admission.allowed) return { ok: true, probe: admission.probe };", replace: "return { ok: true, probe: admission.probe };" },
  { id: "gradebook.429-not-a-failure", file: "src/lti/gradebook/lms-gate.ts", tests: GRADEBOOK, why: "an LMS's 429 counts as a success for its breaker",
    find: 'if (status === 429) return "neutral";', replace: "" },
  { id: "gradebook.return-get-only", file: "src/lti/gradebook/return-guard.ts", tests: GRADEBOOK, why: "a HEAD of the return queues a score",
    find: 'if (req.method !== "GET") return "head";', replace: "" },
  { id: "gradebook.return-no-prefetch", file: "src/lti/gradebook/return-guard.ts", tests: GRADEBOOK, why: "a browser's prefetch of the return queues a score",
    find: 'if (/prefetch|prerender/.test(purpose)) return "prefetch";', replace: "" },
  { id: "gradebook.return-no-cross-site-subrequest", file: "src/lti/gradebook/return-guard.ts", tests: GRADEBOOK, why: "an image or fetch from another site queues a score",
    find: 'return "cross-site-subrequest";', replace: "return undefined;" },
];
