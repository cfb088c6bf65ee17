/**
 * How long a storm must take at the least, whatever the router does.
 *
 * The platform's limit is a sliding window: `limit` calls may go at once, and after that
 * `limit` more per window. So N launches need at least (N − limit) ÷ rate, plus one round
 * trip for the last call to come back. `N ÷ rate` (the older bound) is one window longer
 * than that and flatters the ratio.
 *
 * @param {{ students: number, limit: number, windowMs: number, roundTripMs: number }} storm
 * @returns {number} the bound in ms
 */
export function physicalBoundMs({ students, limit, windowMs, roundTripMs }) {
  return (Math.max(0, students - limit) / limit) * windowMs + roundTripMs;
}

/**
 * `ratioToPhysical` = time ÷ ((N − limit) ÷ rate + one round trip): 1 is the best any
 * client of this key could do. For a fleet, `limit` and the rate are the key's (shared by
 * all instances), and `students` the fleet's total.
 */
export function ratioToPhysical(timeMs, storm) {
  return timeMs / physicalBoundMs(storm);
}
