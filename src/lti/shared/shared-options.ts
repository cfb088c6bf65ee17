/**
 * The field schemas several LTI options share (names, ids, URLs), so each rule and its
 * message is written once.
 */
import { z } from "zod";
import { isHttpsOrLoopback } from "../../core/secure-url.js";
import { isText } from "../../core/text.js";

/** A string of 1 to `max` characters; one message for a non-string, an empty and a long one alike. */
export const text = (max: number, message = `must be a string of 1-${max} characters.`) =>
  z.string({ error: message }).refine((v) => isText(v, max), { error: message });

/** An https URL (http only for a loopback host) that also passes `more`; one message for every way to miss it. */
export const httpsUrl = (message: string, more: (url: URL) => boolean = () => true) =>
  z.string({ error: message }).refine((v) => URL.canParse(v) && isHttpsOrLoopback(new URL(v)) && more(new URL(v)), { error: message });

/**
 * A list's check that no two entries share a key (`keyOf`; undefined: not checked), each
 * repeat one problem at its index (and `at` in it). It runs even when another entry is
 * wrong (`when`), so one pass shows every mistake.
 */
export const eachOnce = <E>(keyOf: (entry: Partial<E>) => string | undefined, at: string[], message: (entry: Partial<E>) => string, fix: string) =>
  z.superRefine((list: unknown[], ctx) => {
    const seen = new Set<string>();
    list.forEach((entry, i) => {
      const key = keyOf((entry ?? {}) as Partial<E>);
      if (key !== undefined && seen.has(key)) ctx.addIssue({ code: "custom", path: [i, ...at], message: message(entry as Partial<E>), params: { fix } });
      if (key !== undefined) seen.add(key);
    });
  }, { when: (payload) => Array.isArray(payload.value) });
