/**
 * The launch feature's settings: the options `GET /launch/:examId` reads, as a schema the
 * router reads with its own (settings.ts: one ConfigurationError for all).
 */
import type { OralAssessmentsOptions } from "../shared/options.js";
import { z } from "zod";
import { checked, fn, optional, optionMeta, pattern, shown, wholeNumber, withDefault, type OptionsOf } from "../../core/option-schema.js";
import { ANY_SIGNED_IN_USER, checkOrigin, checkSiteUrl } from "../shared/checks.js";

/**
 * The schema's fields: `examHost` undefined, students go to the platform's own host, with
 * no token; `canLaunch` undefined only for `"any-signed-in-user"`, the integrator accepted
 * that every signed-in user may launch; `student` undefined, the default mapper (admission.ts).
 */
export type LaunchSettings = OptionsOf<typeof launchSchema>;

/**
 * `canLaunch` has no silent default: without it every signed-in user could launch every
 * known exam and be enrolled in its class on the platform. The integrator either checks
 * the roster or says, in so many words, that anyone signed in may launch.
 */
const canLaunch = z.union([z.literal(ANY_SIGNED_IN_USER).transform(() => undefined), fn<Exclude<OralAssessmentsOptions["canLaunch"], string>>()], {
  error: (issue) => (issue.input === undefined ? "is missing: who may launch an exam must be decided explicitly."
    : `must be a function or "${ANY_SIGNED_IN_USER}", got ${shown(issue.input)}.`),
});
optionMeta.add(canLaunch, { fix: "Pass a roster check, e.g. canLaunch: async (req, { classId }) => roster.has(classId, req.user.id), " +
  `or canLaunch: "${ANY_SIGNED_IN_USER}" to let every signed-in user launch every exam (and be enrolled in its class) on purpose.` });

/** The launch's options as a schema. */
export const launchSchema = {
  examHost: optional(checked((v, option, problems) => checkOrigin(v, option, problems, true))),
  student: optional(fn<NonNullable<OralAssessmentsOptions["student"]>>(), { fix: "Pass a function or leave student out for the default." }),
  ticketParam: withDefault(pattern(/^[A-Za-z0-9_.-]{1,64}$/, "must be 1–64 characters of letters, digits, '_', '.' or '-'."), "__clerk_ticket",
    { fix: 'Leave it out for "__clerk_ticket", or name the parameter your exam page reads.' }),
  loginUrl: optional(checked((v, option, problems) => checkSiteUrl(v, option, problems, "/login"))),
  launchWaitMs: withDefault(wholeNumber(1_000, undefined, "ms"), 120_000),
  /** At most 30 s: proxies and browsers give up on requests held longer. */
  waitingPageAfterMs: withDefault(wholeNumber(0, 30_000, "ms"), 2_000, { fix: "Use a few seconds (proxies and browsers give up on requests held longer than 30 s), e.g. 2000." }),
  canLaunch,
};
