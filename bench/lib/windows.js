/**
 * `maxInAnyWindow`: the largest number of timestamps within any `windowMs` span. Plain
 * JavaScript so the benchmarks (which import the built package) and the tests (through
 * `windows.d.ts`) share the one implementation of "did we stay under the rate limit".
 */

/**
 * @param {readonly number[]} times ms timestamps, in any order
 * @param {number} windowMs
 * @returns {number}
 */
export function maxInAnyWindow(times, windowMs) {
  const sorted = [...times].sort((a, b) => a - b);
  let max = 0;
  for (let i = 0, j = 0; i < sorted.length; i++) {
    while (sorted[i] - sorted[j] >= windowMs) j++;
    max = Math.max(max, i - j + 1);
  }
  return max;
}
