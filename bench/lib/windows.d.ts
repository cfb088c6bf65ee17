/** Largest number of timestamps within any `windowMs` span (see windows.js). */
export function maxInAnyWindow(times: readonly number[], windowMs: number): number;
