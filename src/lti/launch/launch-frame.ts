/**
 * The pages answered after a launch (the picker's choice, the course offer's answer, the
 * prepare form's answer and its progress) may be framed by that launch's LMS only: their
 * record names the registration (issuer, client id), whose origins replace the union of
 * every registered LMS in the page's `frame-ancestors` (pages.ts). A registration gone
 * since: no LMS may frame the page.
 */
import type { Response } from "express";
import { useFrameAncestors } from "../shared/pages.js";
import { originsOf } from "../lms/registrations.js";
import type { RegistrationSource } from "../lms/registration-source.js";

export async function frameForLaunch(res: Response, source: { find: RegistrationSource["find"] }, issuer: string, clientId: string): Promise<void> {
  const lookup = await source.find(issuer, clientId);
  useFrameAncestors(res, "found" in lookup ? originsOf(lookup.found) : []);
}
