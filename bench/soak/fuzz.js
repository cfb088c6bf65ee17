/**
 * The soak's fuzz phase: fast-check cases of invalid bodies, ids and headers on every
 * instructor route (fuzz-cases.js): no answer ≥ 500, no platform call, every answer a
 * problem+json (a 400 naming a field). Each failing class is listed with a small example.
 */
import fc from "fast-check";
import { invalidRequest, malformedPathRequest, wrongAnswerFor } from "./fuzz-cases.js";
import { rawRequest } from "./http.js";

/** `total` cases from `concurrency` workers through `supervised` (supervised-router.js), generated from `seed`. */
export async function runFuzz({ supervised, control, seed, total, concurrency }) {
  const { current, countKey } = supervised;
  await control("DELETE", "/faults");
  const r = await current();
  const since = Date.now();
  // 95 % invalid ids, bodies and headers; 5 % malformed percent-encoding (a known router finding).
  const cases = fc.sample(fc.oneof({ weight: 19, arbitrary: invalidRequest(r.ids) }, { weight: 1, arbitrary: malformedPathRequest() }), { numRuns: total, seed });
  const stats = { cases: 0, serverErrors: 0, upstreamOnInvalid: 0, notProblemNamingField: 0, findings: {} };
  let next = 0;
  const cookie = "bench_user=ins";
  const worker = async () => {
    while (next < cases.length) {
      const c = cases[next++];
      let res;
      try {
        res = await rawRequest(r.url, { ...c, headers: { ...c.headers, cookie } }, 10_000);
      } catch (error) {
        res = { status: 0, headers: {}, text: String(error.message) };
      }
      stats.cases += 1;
      countKey(res.text);
      const wrong = res.status === 0 ? "no answer" : wrongAnswerFor(c.path, res.status, res.headers["content-type"], res.text);
      if (res.status >= 500 || res.status === 0) stats.serverErrors += 1;
      else if (wrong) stats.notProblemNamingField += 1;
      if (wrong) {
        // One class per route shape and reason; keep the shortest example.
        const route = `${c.method} ${c.path.replace(/^\/(launch|courses|classes|oral-assessments)\/[^/]+/, "/$1/:id")}`;
        const key = `${route} → ${wrong}`;
        const example = `${c.method} ${c.path}${c.body === undefined ? "" : ` ${c.body}`}`.slice(0, 300);
        const seen = stats.findings[key];
        stats.findings[key] = { count: (seen?.count ?? 0) + 1, example: seen && seen.example.length <= example.length ? seen.example : example };
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const log = await control("GET", "/requests");
  stats.upstreamOnInvalid = log.filter((entry) => entry.at >= since).length;
  return stats;
}
