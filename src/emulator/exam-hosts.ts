/**
 * Each organization's exam host: one more node:http server per organization given through
 * `organizations`, on the emulator's `host` and a port of its own. An exam host stands in
 * for an organization's custom exam domain, and the router needs it to be an origin: on one
 * loopback address, origins differ by port. It serves the pages only (`/exam/…`, and `/`
 * and `/sign-in` for its links), for its own organization (site.ts); the platform API and
 * the control endpoints stay on the main origin.
 */
import { createServer, type Server } from "node:http";
import type { EmulatorContext } from "./context.js";
import { handleExam } from "./exam-page.js";
import { listen, sendJson, sendText, splitTarget, urlHost, writable } from "./http.js";
import type { ResolvedOrganization } from "./organizations.js";
import { handlePlatformHost } from "./platform-host.js";
import { organizationSite } from "./site.js";

export interface ExamHost {
  /** The organization's id. */
  org: string;
  /** Its origin, e.g. `http://127.0.0.1:43124`. */
  url: string;
  server: Server;
}

function examHostServer(ctx: EmulatorContext, organization: ResolvedOrganization): Server {
  const site = organizationSite(organization);
  return createServer((req, res) => {
    const { path, query } = splitTarget(req.url);
    let work: Promise<void> | undefined;
    if (path.startsWith("/exam/")) work = handleExam(ctx, req, res, path, query, site);
    else if (path === "/" || path === "/sign-in") work = handlePlatformHost(ctx, req, res, path, query, site);
    else {
      req.resume();
      sendText(res, 404, "Not found: an exam host serves exam pages only (the API is on the emulator's main origin).\n",
        "text/plain; charset=utf-8", { "Cache-Control": "no-store" });
    }
    work?.catch((err: unknown) => {
      ctx.logger.error({ org: organization.id, path, error: err instanceof Error ? err.message : String(err) }, "emulator request failed");
      if (writable(res)) sendJson(res, 500, { error: { code: "server_error", message: "The emulator failed to handle this request." } });
    });
  });
}

/**
 * Starts the exam hosts of the organizations that have one (`examPort` set). When one
 * cannot listen, those already started are closed before the error is thrown.
 */
export async function startExamHosts(ctx: EmulatorContext, host: string): Promise<ExamHost[]> {
  const started: ExamHost[] = [];
  try {
    for (const organization of ctx.options.organizations) {
      if (organization.examPort === undefined) continue;
      const server = examHostServer(ctx, organization);
      const port = await listen(server, host, organization.examPort);
      started.push({ org: organization.id, url: `http://${urlHost(host)}:${port}`, server });
    }
  } catch (err) {
    await closeServers(started.map((h) => h.server));
    throw err;
  }
  return started;
}

/** Stops the servers and ends every connection (hung and keep-alive ones would hold close open). */
export function closeServers(servers: readonly Server[]): Promise<void> {
  return Promise.all(servers.map((server) => new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  }))).then(() => undefined);
}
