/**
 * `GET /oral-assessments/:examId/live`: where an exam stands, for the person watching the
 * storm. Students are counted by their latest launch outcome, from the launch record in
 * the store (so fleet-wide when the instances share a database); pre-warming from the
 * plan's shared progress; the budget from the key's rate budget (fleet-wide with
 * `redisFleet`), and the platform's 429s and errors of the last five minutes from every
 * request on the organization's key, for every exam (the key's, not the exam's: fleet-wide
 * with `redisFleet`, see platform-answers.ts). With `Accept: text/event-stream` the same snapshot is sent every
 * `LIVE_EVERY_MS` as Server-Sent Events, until the client goes: computed once per exam
 * per period for every stream that follows it (live-feed.ts), streams capped per user,
 * organization and router (live-limits.ts), ended when the router closes.
 */
import type { Request, Response } from "express";
import type { PlatformClient } from "../../platform/types.js";
import type { OralStore } from "../../store/types.js";
import type { OrganizationIdOf } from "../shared/request-organization.js";
import type { Preparation } from "../prepare/preparation.js";
import { param, type Handler } from "../shared/instructor-http.js";
import { privateAnswerHeaders, sendJson } from "../shared/json-answer.js";
import { sendProblem } from "../shared/problem.js";
import type { LaunchRecorder } from "./recorder.js";
import type { PlatformAnswers } from "./platform-answers.js";
import { LiveFeeds } from "./live-feed.js";
import type { LiveStreamLimits } from "./live-limits.js";

/** How often the event stream sends a snapshot. */
export const LIVE_EVERY_MS = 2_000;
/** The window of the platform's 429s and errors. */
const RECENT_MS = 5 * 60_000;

const REFUSED = ["forbidden", "launch_limited", "failure_backoff", "wait_refused"];
const FAILED = ["class_full", "platform_failed", "platform_timeout", "platform_busy", "platform_unavailable", "wait_exceeded"];

export interface LiveDeps {
  store: OralStore;
  recorder: LaunchRecorder | undefined;
  organizationIdOf: OrganizationIdOf;
  platform: PlatformClient;
  preparation: Preparation;
  /** The platform's 429s and errors on this organization's key, fleet-wide. */
  answers: PlatformAnswers;
  /** The router's caps on open streams (every organization). */
  limits: LiveStreamLimits;
}

export interface LiveView {
  handler: Handler;
  /** Streams open now on this organization. */
  readonly streams: number;
  /** Ends every stream (the router is closing). */
  close(): void;
}

const sum = (counts: Record<string, number>, outcomes: string[]) => outcomes.reduce((n, o) => n + (counts[o] ?? 0), 0);

export function liveView({ store, recorder, organizationIdOf, platform, preparation, answers, limits }: LiveDeps): LiveView {
  async function snapshot(org: string, examId: string) {
    await recorder?.flush();
    const [latest, recent, progress] = await Promise.all([
      store.countLaunches(org, { kind: "oral", examId, latestPerStudent: true }),
      answers.recent(RECENT_MS),
      preparation.sharedProgress(examId),
    ]);
    const stats = platform.rateStats();
    return {
      launched: latest.redirected ?? 0,
      waiting: latest.waiting ?? 0,
      refused: sum(latest, REFUSED),
      failed: sum(latest, FAILED),
      // `expiring` is missing from a snapshot a fleet leader of an older version wrote.
      prepared: { ready: progress?.ready ?? 0, planned: progress?.roster ?? 0, expiring: progress?.expiring ?? 0, expired: progress?.expired ?? 0 },
      budget: {
        used: stats.sentInWindow, limit: stats.limit, windowMs: stats.windowMs,
        platform429: recent.platform429, platformErrors: recent.platformErrors,
      },
    };
  }

  // This scope is one organization's: the organization of every request it answers.
  let organization: string | undefined;
  const feeds = new LiveFeeds(async (examId) => {
    try {
      return `event: snapshot\ndata: ${JSON.stringify(await snapshot(organization!, examId))}\n\n`;
    } catch {
      // The store failed this once: say so, the streams go on.
      return "event: unavailable\ndata: {}\n\n";
    }
  }, LIVE_EVERY_MS);

  const handler: Handler = async (req: Request, res: Response) => {
    const examId = param(req, res, "examId");
    if (examId === undefined) return;
    const org = organizationIdOf(req);
    if (req.accepts(["application/json", "text/event-stream"]) !== "text/event-stream") {
      sendJson(res, 200, { data: await snapshot(org, examId) });
      return;
    }
    const place = limits.take(org, req);
    if (typeof place !== "function") {
      sendProblem(res, place);
      return;
    }
    organization = org;
    res.statusCode = 200;
    res.setHeader("Content-Type", "text/event-stream; charset=utf-8");
    privateAnswerHeaders(res);
    // Proxies (nginx) must pass each event on at once, not buffer the stream.
    res.setHeader("X-Accel-Buffering", "no");
    res.flushHeaders();
    await new Promise<void>((resolve) => {
      const leave = feeds.follow(examId, {
        get unread() { return res.writableLength; },
        write: (event) => { if (!res.destroyed && !res.writableEnded) res.write(event); },
        end: () => res.end(),
      });
      res.once("close", () => {
        leave();
        place();
        resolve();
      });
    });
  };
  return { handler, get streams() { return feeds.streams; }, close: () => feeds.close() };
}
