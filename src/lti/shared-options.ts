/**
 * The field schemas several LTI options share (names, ids, URLs), so each rule and its
 * message is written once.
 */
import { z } from "zod";
import { isHttpsOrLoopback } from "../core/secure-url.js";

/** A string of 1 to `max` characters; one message for a non-string, an empty and a long one alike. */
export const text = (max: number, message = `must be a string of 1-${max} characters.`) =>
  z.string({ error: message }).min(1, { error: message }).max(max, { error: message });

/** An https URL (http only for a loopback host) that also passes `more`; one message for every way to miss it. */
export const httpsUrl = (message: string, more: (url: URL) => boolean = () => true) =>
  z.string({ error: message }).refine((v) => URL.canParse(v) && isHttpsOrLoopback(new URL(v)) && more(new URL(v)), { error: message });
