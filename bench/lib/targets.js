/**
 * The bench's report: each part's figures as [metric, value, target, met] rows, the targets
 * checked against baselines measured in the same run. A row with a target counts towards
 * the exit code (bench/run.js).
 */
import { gradebookRows } from "./gradebook-targets.js";

/** The rows of the parts that ran (`result` as bench/run.js gathers it), in the table's order. */
export function targetRows(result) {
  /** [metric, value, target, met] rows; a row with a target counts towards the exit code. */
  const rows = [];
  const { storm, overhead, memory, breakdown, fleet, organizations, launchRecord, lti, ltiRoster, liveView, exports, loginFlood } = result;
  if (storm) {
    const d = storm.onDemand;
    const w = storm.preWarmed;
    rows.push(
      ["storm: students", storm.students],
      ["storm: platform rate (per min)", storm.ratePerMinute],
      ["on demand: last redirect (ms)", d.lastRedirectMs, `physical bound for these arrivals = ${d.physicalBoundMs}`],
      ["on demand: ratioToPhysical (single instance, time ÷ physical)", d.ratioToPhysical, "≤ 1.03 (issue 29)", d.ratioToPhysical <= 1.03],
      ["on demand: ratio to N ÷ rate (older, looser bound)", d.ratio, `N ÷ rate = ${d.boundMs}`],
      ["on demand: failed", d.failed, "0", d.failed === 0],
      ["on demand: saw waiting page", d.sawWaitingPage],
      ["on demand: platform 429s", d.platform429, "0", d.platform429 === 0],
      ["on demand: max calls in a window", d.maxInAnyWindow],
      ["pre-warmed: p50 (ms)", w.p50Ms],
      ["pre-warmed: p99 (ms)", w.p99Ms, "< 50", w.p99Ms < 50],
      ["pre-warmed: failed", w.failed, "0", w.failed === 0],
      ["pre-warmed: platform calls in storm", w.platformCallsDuringStorm, "0", w.platformCallsDuringStorm === 0],
    );
  }
  if (overhead) {
    const o = overhead;
    rows.push(
      ["overhead: launch direct median (ms)", o.directMedianMs],
      ["overhead: launch router added (ms)", o.routerVsDirect.medianAddedMs, "< http-proxy-middleware", o.routerVsDirect.medianAddedMs < o.httpProxyMiddleware.medianAddedMs],
      ["overhead: launch http-proxy-middleware added (ms)", o.httpProxyMiddleware.medianAddedMs],
      ["overhead: launch minimal forwarder added (ms)", o.minimalForwarder.medianAddedMs, "(floor, no target)"],
      ["overhead: GET course direct median (ms)", o.instructorGet.directMedianMs],
      ["overhead: GET course router added (ms)", o.instructorGet.routerAddedMs, "< http-proxy-middleware", o.instructorGet.routerAddedMs < o.instructorGet.proxyAddedMs],
      ["overhead: GET course http-proxy-middleware added (ms)", o.instructorGet.proxyAddedMs],
      ["overhead: GET course axios floor added (ms)", o.instructorGet.axiosFloorAddedMs, "(least any router with axios adds; no target)"],
      ["overhead: POST course direct median (ms)", o.instructorCreate.directMedianMs],
      ["overhead: POST course router added (ms)", o.instructorCreate.routerAddedMs, "< http-proxy-middleware", o.instructorCreate.routerAddedMs < o.instructorCreate.proxyAddedMs],
      ["overhead: POST course http-proxy-middleware added (ms)", o.instructorCreate.proxyAddedMs],
    );
  }
  if (launchRecord) {
    const r = launchRecord;
    rows.push(
      ["launch record: launches recorded", r.recorded, `= rounds + warm-up`, r.recorded === r.expected],
      ["launch record: p50 without / with (ms)", `${r.p50WithoutMs} / ${r.p50WithMs}`],
      ["launch record: p99 without (ms)", r.p99WithoutMs],
      ["launch record: p99 with (ms)", r.p99WithMs],
      ["launch record: p99 ratio", r.ratio, "≤ 1.05", r.ratio <= 1.05],
      ["launch record, no platform call: p50 without / with (ms)", `${r.noCall.p50WithoutMs} / ${r.noCall.p50WithMs}`],
      ["launch record, no platform call: p99 without / with (ms)", `${r.noCall.p99WithoutMs} / ${r.noCall.p99WithMs}`],
      ["launch record, no platform call: p99 ratio", r.noCall.ratio, "≤ 1.05", r.noCall.ratio <= 1.05],
    );
  }
  if (memory) {
    rows.push(
      ["memory: launches", memory.launches],
      ["memory: failed", memory.failed, "0", memory.failed === 0],
      ["memory: launches/s", memory.launchesPerSecond],
      ["memory: RSS growth (%)", memory.rssGrowthPct, "< 5", memory.rssGrowthPct < 5],
    );
  }
  if (organizations) {
    const { noisyNeighbourRounds: rounds, idle: i, cpuPerLaunch: c } = organizations;
    // Beside a CPU-bound neighbour process the target is 3× (issue 29), on an idle machine 2×.
    const times = rounds[0].cpuNeighbour ? 3 : 2;
    const with_ = rounds[0].cpuNeighbour ? ", with a CPU-bound neighbour" : "";
    rounds.forEach((n, k) => {
      const at = rounds.length > 1 ? ` (round ${k + 1}, load ${n.loadAverage.before} → ${n.loadAverage.after}${with_})` : ` (load ${n.loadAverage.before} → ${n.loadAverage.after}${with_})`;
      rows.push(
        [`organizations: quiet school p99 alone / beside a storm (ms)${at}`, `${n.quietBaselineP99Ms} / ${n.quietP99Ms}`],
        [`organizations: noisy-neighbour ratio${at}`, n.ratio, `≤ ${times}`, n.quietP99Ms <= times * n.quietBaselineP99Ms],
        [`organizations: quiet school failed${at}`, n.quietFailed, "0", n.quietFailed === 0],
      );
    });
    rows.push(["organizations: storm school redirected", rounds[0].stormRedirected]);
    if (c) {
      rows.push(
        ["organizations: host CPU per launch (ms)", c.routerMsPerLaunch, "≤ 0.4", c.routerMsPerLaunch <= 0.4],
        ["organizations: host CPU per launch, each round (ms)", c.routerMsPerLaunchByRound.join(", ")],
        ["organizations: host CPU per launch request, refreshes included (ms)", c.routerMsPerLaunchRequest],
        [`organizations: http-proxy-middleware CPU per request (ms, ${c.httpProxyMiddlewareRequests} requests)`, c.httpProxyMiddlewareMsPerRequest],
      );
      const f = c.launchesAlone;
      if (f) {
        rows.push([`organizations: CPU per launch alone, router / floor with Express and axios / with Express / bare node:http (ms; load ${f.loadAverage.before} → ${f.loadAverage.after})`,
          `${f.routerMsPerLaunch} / ${f.floorExpressAxiosMsPerLaunch} / ${f.floorExpressMsPerLaunch} / ${f.floorMsPerLaunch}`]);
      }
    }
    if (i) {
      rows.push(
        ["organizations: heap per cached organization (KB)", i.heldPerOrganizationKb],
        ["organizations: heap per idle organization (KB)", i.heapPerOrganizationKb, "< 5", i.heapPerOrganizationKb < 5],
      );
    }
  }
  if (liveView) {
    const v = liveView;
    rows.push(
      [`live view: quiet school p95 alone (ms)`, v.quietBaselineP95Ms],
      [`live view: quiet school p95 beside ${v.streams} streams on ${v.records} records (ms)`, v.quietP95Ms, "< 2 × alone", v.quietP95Ms < 2 * v.quietBaselineP95Ms],
      ["live view: quiet school failed", v.quietFailed, "0", v.quietFailed === 0],
      ["live view: streams fed / snapshots per stream per s", `${v.streamsFed} / ${v.snapshotsPerStreamPerSecond}`],
    );
  }
  if (exports) {
    const e = exports;
    rows.push(
      [`exports: ${e.exportMb} MB CSV, one reading client (ms)`, e.readingClientMs],
      [`exports: load average before / after`, `${e.loadAverage.before} / ${e.loadAverage.after}`],
      [`exports: pages read for ${e.clients} clients that never read, settled after (s)`, `${e.pagesRead}, ${e.settledS}`],
      [`exports: heap growth over idle, ${e.clients} clients that never read (MB)`, e.heapGrowthMb, "< 5", e.heapGrowthMb < 5],
      [`exports: RSS growth over idle, ${e.clients} clients that never read (MB)`, e.rssGrowthMb, "< 20", e.rssGrowthMb < 20],
      ["exports: per silent client, heap / RSS (kB)", `${e.heapPerClientKb} / ${e.rssPerClientKb}`],
      ["exports: after they closed, heap / RSS over idle (MB)", `${e.afterCloseHeapGrowthMb} / ${e.afterCloseRssGrowthMb}`],
    );
  }
  if (loginFlood) {
    const { logins, inProcess: p, fleet: f } = loginFlood;
    rows.push(
      ["login flood: load average before / after", `${loginFlood.loadAverage.before} / ${loginFlood.loadAverage.after}`],
      [`login flood, in process: ${logins} maximum-size logins answered (nothing kept)`, p.answered, `= ${logins}`, p.answered === logins],
      ["login flood, in process: retained heap growth after GC (MB)", p.heapGrowthMb, "< 40", p.heapGrowthMb < 40],
      ["login flood, in process: retained heap per login (bytes)", p.heapBytesPerLogin],
      ["login flood, in process: RSS growth (MB, information)", p.rssGrowthMb],
    );
    if (f.skipped) rows.push(["login flood, Redis: skipped (no Redis)", f.skipped]);
    else {
      rows.push(
        [`login flood, Redis: ${logins} maximum-size logins answered (nothing kept)`, f.answered, `= ${logins}`, f.answered === logins],
        ["login flood, Redis: growth (MB, MEMORY USAGE of the prefix)", f.redisGrowthMb, "< 5", f.redisGrowthMb < 5],
        ["login flood, Redis: keys / bytes per login", `${f.redisKeys} / ${f.redisBytesPerLogin}`],
        ["login flood, Redis: host retained heap growth after GC (MB)", f.heapGrowthMb, "< 40", f.heapGrowthMb < 40],
        ["login flood, Redis: host RSS growth (MB, information)", f.rssGrowthMb],
      );
    }
    const j = loginFlood.jam;
    rows.push(
      [`login jam: ${j.nets} /64s at ${j.ratePerSecond} logins/s for ${j.seconds} s: achieved rate / statuses`, `${j.attackRatePerSecond}/s ${JSON.stringify(j.attackStatuses)}`],
      [`login jam: learners from other addresses who got their login (% of ${j.learnerLogins})`, j.learnersGotLoginPercent, "≥ 99 (issue 43)", j.learnersGotLoginPercent >= 99],
    );
  }
  rows.push(...gradebookRows(result));
  if (fleet) {
    const d = fleet.onDemand;
    const w = fleet.preWarmed;
    rows.push(
      ["fleet: instances", fleet.instances],
      ["fleet on demand: ratio", d.ratio, "≤ 1.00 (issue 29)", d.ratio <= 1.0],
      ["fleet on demand: ratioToPhysical", d.ratioToPhysical, `physical bound for these arrivals = ${d.physicalBoundMs} ms`],
    ["fleet on demand: last sign-in call / last redirect (ms)", `${d.lastSignInCallMs} / ${d.lastRedirectMs}`],
      ["fleet on demand: failed", d.failed, "0", d.failed === 0],
      ["fleet on demand: platform 429s", d.platform429, "0", d.platform429 === 0],
      ["fleet on demand: sign-in calls", d.signInCalls, `= students (${d.students})`, d.signInCalls === d.students],
      ["fleet on demand: max calls in a window", d.maxInAnyWindow],
      ["fleet pre-warmed: p99 (ms)", w.p99Ms, "< 25 (issue 29)", w.p99Ms < 25],
      ["fleet pre-warmed: failed", w.failed, "0", w.failed === 0],
      ["fleet pre-warmed: platform calls in storm", w.platformCalls, "0", w.platformCalls === 0],
      ["fleet pre-warmed: duplicate tokens", w.duplicateTokens, "0", w.duplicateTokens === 0],
      ["fleet kill one: failed", fleet.killOne.failed, "0", fleet.killOne.failed === 0],
      ["fleet organizations: touched once each", fleet.organizations.count],
      ["fleet organizations: Redis keys before idling", fleet.organizations.keysBefore],
      ["fleet organizations: keys left after the idle expiry", fleet.organizations.keysLeftAfterExpiry, "0", fleet.organizations.keysLeftAfterExpiry === 0],
      ["fleet organizations: keys left without a lifetime", fleet.organizations.keysWithoutTtl, "0", fleet.organizations.keysWithoutTtl === 0],
      ["fleet organizations: of which pre-warm plans' / others'", `${fleet.organizations.planKeysLeft} / ${fleet.organizations.otherKeysLeft}`],
    );
  }
  if (lti) {
    rows.push(
      ["lti storm: learners (preset, arrival ms)", `${lti.students} (${lti.preset}, ${lti.arrivalMs})`],
      ["lti storm: load average before / after", `${lti.loadAverage.before} / ${lti.loadAverage.after}`],
      ["lti storm: login p50 / p99 (ms)", `${lti.login.p50Ms} / ${lti.login.p99Ms}`, "p99 < 50", lti.login.p99Ms < 50],
      ["lti storm: launch p50 / p99 (ms)", `${lti.launch.p50Ms} / ${lti.launch.p99Ms}`, "p99 < 50", lti.launch.p99Ms < 50],
      ["lti storm: open p50 / p99 (ms)", `${lti.open.p50Ms} / ${lti.open.p99Ms}`, "p99 < 50", lti.open.p99Ms < 50],
      ["lti storm: failed", lti.failed, "0", lti.failed === 0],
      ["lti storm: sign-in calls per student", lti.signInCallsPerStudent, "1", lti.signInCallsPerStudent === 1],
      ["lti storm: sign-in calls during the storm", lti.signInCallsInStorm, "0 (pre-warmed)", lti.signInCallsInStorm === 0],
      ...(lti.ags ? [
        // The warm-up learners (off the roster) reach the exam too: at least one Started per learner.
        ["lti storm: AGS learners Started in the LMS gradebook", `${lti.ags.started} (${lti.ags.scores} posts, ${lti.ags.lineItems} line item, ${lti.ags.tokensIssued} tokens)`, `≥ ${lti.students}`, lti.ags.started >= lti.students],
        ["lti storm: AGS all delivered, ms after the last launch", lti.ags.allStartedMsAfterStorm],
      ] : [["lti storm: gradebook", "off (--lti-gradebook off)"]]),
    );
  }
  if (ltiRoster) {
    const r = ltiRoster;
    rows.push(
      ["lti roster storm: learners (preset, arrival ms)", `${r.students} (${r.preset}, ${r.arrivalMs})`],
      ["lti roster storm: load average before / after", `${r.loadAverage.before} / ${r.loadAverage.after}`],
      ["lti roster storm: prepared through NRPS (pages, form post ms)", `${r.prepared} (${r.nrpsPages}, ${r.preparePostMs})`],
      ["lti roster storm: login p50 / p99 (ms)", `${r.login.p50Ms} / ${r.login.p99Ms}`, "p99 < 50", r.login.p99Ms < 50],
      ["lti roster storm: launch p50 / p99 (ms)", `${r.launch.p50Ms} / ${r.launch.p99Ms}`, "p99 < 50", r.launch.p99Ms < 50],
      ["lti roster storm: open p50 / p99 (ms)", `${r.open.p50Ms} / ${r.open.p99Ms}`, "p99 < 50", r.open.p99Ms < 50],
      ["lti roster storm: failed", r.failed, "0", r.failed === 0],
      ["lti roster storm: sign-in calls during the storm", r.signInCallsInStorm, "0 (prepared)", r.signInCallsInStorm === 0],
    );
  }
  if (breakdown) {
    for (const [stage, ms] of Object.entries(breakdown.httpStagesMs)) rows.push([`breakdown (ms): ${stage}`, ms]);
    for (const [stage, us] of Object.entries(breakdown.inProcessUs)) rows.push([`breakdown (µs): ${stage}`, us]);
  }
  return rows;
}
