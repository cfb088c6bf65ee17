/**
 * The one whole-number check: an integer from `min` to `max` (both included). Options
 * (`wholeNumber` in option-schema.ts), ports, HTTP statuses, byte counts and offsets read
 * from a form all use it, each with its own message.
 */
export function isWholeNumber(value: unknown, min: number, max = Infinity): value is number {
  return Number.isInteger(value) && (value as number) >= min && (value as number) <= max;
}
