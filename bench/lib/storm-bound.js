/**
 * How long a storm must take at the least, whatever the router does.
 *
 * The platform's limit is a sliding window: `limit` calls may go at once, and after that
 * `limit` more per window. So N launches need at least (N − limit) ÷ rate, plus one round
 * trip for the last call to come back. `N ÷ rate` (the older bound) is one window longer
 * than that and flatters the ratio.
 *
 * The benchmarks' students do not all arrive at once: student i arrives at
 * i × arrivalMs ÷ N (bench/storm.js, bench/fleet.js), and no client can send a student's
 * call before the student asked. With the arrivals, the best schedule sends call i at
 * max(its arrival, call (i − limit)'s time + one window): the `limit` calls of the first
 * window go over the first limit ÷ N of the spread (167 ms for 100 of 600 over 1 s), and
 * every later window inherits that spread. `(N − limit) ÷ rate + round trip` alone (what
 * `arrivalMs: 0` gives) is the bound for students who all arrive at the same instant,
 * 3.3 % under what the benchmarks' own arrivals allow (docs/lab/benchmarks.md).
 *
 * @param {{ students: number, limit: number, windowMs: number, roundTripMs: number, arrivalMs?: number }} storm
 * @returns {number} the bound in ms
 */
export function physicalBoundMs({ students, limit, windowMs, roundTripMs, arrivalMs = 0 }) {
  if (students <= 0) return roundTripMs;
  const sentAt = [];
  for (let i = 0; i < students; i++) {
    const arrives = (i * arrivalMs) / students;
    sentAt.push(i < limit ? arrives : Math.max(arrives, sentAt[i - limit] + windowMs));
  }
  return sentAt[students - 1] + roundTripMs;
}

/**
 * `ratioToPhysical` = time ÷ the bound above (with the storm's arrivals): 1 is the best any
 * client of this key could do for students arriving as the benchmark's do. For a fleet,
 * `limit` and the rate are the key's (shared by all instances), and `students` the
 * fleet's total.
 */
export function ratioToPhysical(timeMs, storm) {
  return timeMs / physicalBoundMs(storm);
}
