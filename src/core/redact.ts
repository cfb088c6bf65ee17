/**
 * The one way an API key may ever be shown: its prefix and last four characters
 * (`svc_live_…abcd`, `ct_test_…abcd`). Short or odd keys show even less, so a typo'd key cannot leak
 * through its own redaction.
 */
export function redactKey(key: unknown): string {
  if (typeof key !== "string" || key.length === 0) return "(none)";
  const prefix = /^(svc|ct)_(live|test)_/.exec(key)?.[0] ?? "";
  const rest = key.slice(prefix.length);
  if (rest.length < 12) return `${prefix}…`;
  return `${prefix}…${rest.slice(-4)}`;
}

/**
 * Removes every occurrence of the given secrets from a string. A last line of defence
 * for text that came from elsewhere (an upstream error message that echoed the key).
 */
export function scrubSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) {
    if (secret.length >= 8 && out.includes(secret)) out = out.split(secret).join(redactKey(secret));
  }
  // Bearer tokens of any kind never belong in a message.
  return out.replace(/Bearer\s+[A-Za-z0-9._~+/=-]+/g, "Bearer [redacted]");
}
