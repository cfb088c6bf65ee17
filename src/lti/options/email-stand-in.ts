/**
 * `lti.emailStandIn` read as an option: `{ domain }`, lower-cased. Apart from the stand-in
 * addresses it makes (student-email.ts), so the settings read it without the launch's code.
 */
import { z } from "zod";
import { optional } from "../../core/option-schema.js";

const DOMAIN = /^(?=.{4,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;

/**
 * `lti.emailStandIn`: `{ domain }`, lower-cased. Checked as a whole, so a wrong domain is
 * the option's problem (`lti.emailStandIn`), as the message names the object.
 */
export const emailStandInSchema = optional(z.custom<{ domain: string }>((v) => {
  const domain = (v as { domain?: unknown } | null)?.domain;
  return typeof domain === "string" && DOMAIN.test(domain.toLowerCase());
}, { error: 'must be { domain } with a host name such as "lms-users.example.edu".' }).transform(({ domain }) => ({ domain: domain.toLowerCase() })),
{ fix: "Use a domain you control that receives no mail, or leave it out (launches without an e-mail are then refused)." });
