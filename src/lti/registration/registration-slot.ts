/**
 * Where Dynamic Registration writes: a registration is stored beside, never over, an
 * active one, and at most `maxPending` registrations of one LMS host name wait for activation,
 * counted atomically, with the store's own five calls (so a custom store, and a fleet
 * sharing one database, get it too):
 *
 * 1. an existing active registration of (issuer, client id) → `active_exists`, nothing written;
 * 2. the registration is written (inactive), then the store's list is read: it is kept
 *    when fewer than `maxPending` pending registrations of its host come before it in
 *    the list (the list is in insertion order), else it deletes itself → `too_many_pending`.
 *
 * Why this is atomic without a lock: the list read after X was written holds every
 * registration written before X, so "how many come before X" is the same number whoever
 * asks, and a registration deleted for being over the cap had at least `maxPending` before
 * it, which come before every later one too. So 150 concurrent registrations keep at
 * most 20. (An activation made between step 1 and the write would be undone: the window
 * is one store call; an administrator activates after the page said "registered".)
 */
import type { LtiRegistrationInput, LtiRegistrationRecord, OralStoreLti } from "../../store/lti-types.js";

/** The host name a stored registration was registered from (its OpenID configuration's, without the port), or undefined. */
export function registeredHost(r: Pick<LtiRegistrationRecord, "data">): string | undefined {
  const url = r.data.openidConfiguration;
  return typeof url === "string" && URL.canParse(url) ? new URL(url).hostname : undefined;
}

/** How many registrations of `host` wait for activation now (the cheap check before asking the LMS anything). */
export async function pendingOn(store: OralStoreLti, host: string): Promise<number> {
  return (await store.listLtiRegistrations()).filter((r) => !r.active && registeredHost(r) === host).length;
}

export type SlotAnswer = "stored" | "active_exists" | "too_many_pending";

export async function storeRegistration(store: OralStoreLti, record: LtiRegistrationInput, host: string, maxPending: number): Promise<SlotAnswer> {
  const existing = await store.getLtiRegistration(record.issuer, record.clientId);
  if (existing?.active) return "active_exists";
  await store.putLtiRegistration(record);
  if (record.active) return "stored";
  const list = await store.listLtiRegistrations();
  const mine = list.findIndex((r) => r.issuer === record.issuer && r.clientId === record.clientId);
  const before = list.slice(0, Math.max(0, mine)).filter((r) => !r.active && registeredHost(r) === host).length;
  if (mine >= 0 && before < maxPending) return "stored";
  if (existing === undefined) await store.deleteLtiRegistration(record.issuer, record.clientId);
  else await store.putLtiRegistration(existing);
  return "too_many_pending";
}
