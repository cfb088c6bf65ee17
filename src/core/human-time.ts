/**
 * Times as people read them: "29 Nov 2026, 04:03 UTC", not "2026-11-29T04:03:20.993Z".
 * What reaches a person from this package without a browser to localize it (the comment in
 * an LMS gradebook, the CLI, the LTI pages' server-drawn text) is English, so the default
 * locale is English with day-month-year (en-GB: no 11/29 vs 29/11 doubt), and the zone is
 * named, UTC unless one is given: the server does not know the reader's.
 */

/** `at` (a Date or an ISO string) to the minute with its zone; an unreadable value is returned as given. */
export function humanTime(at: Date | string, { locale = "en-GB", timeZone = "UTC" }: { locale?: string; timeZone?: string } = {}): string {
  const date = typeof at === "string" ? new Date(at) : at;
  if (Number.isNaN(date.getTime())) return String(at);
  return formatterOf(locale, timeZone).format(date);
}

/** Formatters made, by locale and zone: making one costs far more than formatting with it. */
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterOf(locale: string, timeZone: string): Intl.DateTimeFormat {
  const key = `${locale}\u0000${timeZone}`;
  let found = formatters.get(key);
  if (!found) {
    found = new Intl.DateTimeFormat(locale, {
      year: "numeric", month: "short", day: "numeric", hour: "2-digit", minute: "2-digit", hourCycle: "h23", timeZone, timeZoneName: "short",
    });
    // A few locales and zones in practice (the CLI's, UTC); a bound, should a caller pass many.
    if (formatters.size >= 64) formatters.clear();
    formatters.set(key, found);
  }
  return found;
}

/**
 * `at` in this machine's own locale and time zone (`LANG`, `TZ`: Intl's defaults), for a
 * reader at this terminal (the CLI).
 */
export function localTime(at: Date | string): string {
  const { locale, timeZone } = new Intl.DateTimeFormat().resolvedOptions();
  return humanTime(at, { locale, timeZone });
}
