/**
 * The keys every test uses. They are fresh random values per run (made in
 * global-setup.ts), so the canary can search all output for them: a leak anywhere shows.
 */
function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: test/global-setup.ts makes it`);
  return value;
}

export const TEST_KEY = required("CANARY_TEST_KEY");
export const LIVE_KEY = required("CANARY_LIVE_KEY");
/** A key the emulator does not accept. */
export const WRONG_KEY = required("CANARY_WRONG_KEY");
export const ALL_KEYS = [TEST_KEY, LIVE_KEY, WRONG_KEY] as const;
