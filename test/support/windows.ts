/**
 * Largest number of timestamps within any `windowMs` span (a span starting at each
 * timestamp, half-open: [t, t + windowMs)). Two pointers over the sorted times: O(n log n).
 */
export function maxInAnyWindow(times: readonly number[], windowMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let max = 0;
  let end = 0;
  for (let start = 0; start < sorted.length; start++) {
    while (end < sorted.length && sorted[end]! < sorted[start]! + windowMs) end++;
    max = Math.max(max, end - start);
  }
  return max;
}
