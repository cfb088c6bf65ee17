/**
 * The faults phase's roster (bench/soak/run.js): the students its launches pick from, and
 * the pass that launches each once before the base RSS is measured.
 */
import { rawRequest } from "./http.js";

/** The soak's roster: launches pick one of these students. */
export const STUDENTS = 2_000;

/**
 * Every student of the roster launches once before the base RSS is measured: the
 * router's state per student (a sign-in token, a remembered failure, the host's user
 * object) then sits in the base, as in any process whose students have arrived. Without
 * this, the growth measured the roster arriving (bounded by its size), not a leak.
 */
export async function launchRoster(r, concurrency) {
  let next = 0;
  const worker = async () => {
    while (next < STUDENTS) {
      const path = `/launch/${r.ids.examId}`;
      await rawRequest(r.url, { method: "GET", path, headers: { cookie: `bench_user=s${next++}` } }, 30_000).catch(() => undefined);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}
