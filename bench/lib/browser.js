/**
 * A minimal browser for the benchmark: GETs a launch URL with the student's session
 * cookie and follows the waiting page's `<meta http-equiv="refresh">` until a 303, like
 * a browser with JavaScript off would. Keep-alive sockets, no redirects followed past
 * the 303 (the exam page is the emulator's; tokens are redeemed separately).
 */
import http from "node:http";

const REFRESH = /<meta http-equiv="refresh" content="(\d+);url=([^"]+)">/i;

export function createBrowserPool() {
  return new http.Agent({ keepAlive: true, maxSockets: Infinity });
}

/** One GET; resolves with status, location and body text. */
export function get(agent, url, cookie) {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent, headers: cookie ? { cookie } : {} }, (res) => {
      const chunks = [];
      res.on("data", (c) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode, location: res.headers.location, body: Buffer.concat(chunks).toString("utf8") }));
      res.on("error", reject);
    });
    req.on("error", reject);
  });
}

/**
 * Launches at `base + path` as `cookie`, following waiting pages. Resolves with the final
 * status, the 303's Location, the number of waiting pages and the ms until the answer.
 */
export async function launch(agent, base, path, cookie, maxPages = 1_000) {
  const started = performance.now();
  let url = base + path;
  for (let pages = 0; ; pages++) {
    const res = await get(agent, url, cookie);
    const refresh = res.status === 202 ? REFRESH.exec(res.body) : null;
    if (!refresh || pages >= maxPages) {
      return { status: res.status, location: res.location, waitingPages: pages, ms: performance.now() - started, endedAt: performance.now() };
    }
    const delayS = Number(refresh[1]);
    if (delayS > 0) await new Promise((r) => setTimeout(r, delayS * 1000));
    url = base + refresh[2].replace(/&#(\d+);/g, (_, code) => String.fromCharCode(Number(code)));
  }
}

/** Redeems a token at the exam page: true when the student is signed in. */
export async function redeems(agent, location) {
  if (!location) return false;
  const res = await get(agent, location);
  return res.status === 200 && res.body.includes("Signed in as");
}

/**
 * After a storm's timing: redeems every redirected student's token at the exam page (50 at
 * a time), and returns how many failed, and the sign-in calls the platform saw since
 * `wallStart`.
 */
export async function settleStorm(agent, emulator, walks, wallStart) {
  const ok = [];
  for (let i = 0; i < walks.length; i += 50) {
    ok.push(...await Promise.all(walks.slice(i, i + 50).map((w) => (w.status === 303 ? redeems(agent, w.location) : false))));
  }
  const platform = (await emulator.requests(5_000)).filter((r) => r.at >= wallStart && r.path === "/students/sign-in-token");
  return { failed: ok.filter((x) => !x).length, platform };
}
