/**
 * The step that finds a request's organization before any of its routes run, and the way
 * those routes read it. An organization the resolver does not give is a 404 with nothing
 * sent upstream (an HTML page on the browser's launch routes, problem+json on the
 * instructor API); a resolver that failed is a 503 (it was logged once, without the key).
 */
import type { RequestHandler, Response } from "express";
import { sendPage } from "../shared/html.js";
import { sendProblem } from "../shared/problem.js";
import { setKeyRefusedHook } from "../shared/key-refused.js";
import { OrganizationUnavailable, type Organization, type Organizations } from "./organizations.js";

const LOCAL = "oralAssessmentsOrganization";

/** How the routes behind the step answer: a page for a browser, a problem for an API client. */
export type AnswerAs = "page" | "problem";

export function organizationStep<S>(organizations: Organizations<S>, answerAs: AnswerAs): RequestHandler {
  return (req, res, next) => {
    organizations.of(req).then((org) => {
      if (org) {
        res.locals[LOCAL] = org;
        if (organizations.resolves) setKeyRefusedHook(res, () => organizations.again(req, org));
        next();
      } else unknown(res, answerAs);
    }, (error: unknown) => {
      if (error instanceof OrganizationUnavailable) unavailable(res, answerAs);
      else next(error);
    });
  };
}

/** The request's organization, which `organizationStep` found. */
export function foundOrganization<S>(res: Response): Organization<S> {
  const org = res.locals[LOCAL] as Organization<S> | undefined;
  if (!org) throw new Error("foundOrganization: no organizationStep ran before this route");
  return org;
}

function unknown(res: Response, answerAs: AnswerAs): void {
  if (answerAs === "page") {
    sendPage(res, { status: 404, title: "Exam not found", message: "We could not find this exam for your school. Open it from your own course page." });
  } else {
    sendProblem(res, { status: 404, code: "organization_not_found", title: "Not found", detail: "No organization is known for this request." });
  }
}

function unavailable(res: Response, answerAs: AnswerAs): void {
  if (answerAs === "page") {
    res.setHeader("Retry-After", "30");
    sendPage(res, { status: 503, title: "The exam service is not available", message: "Your school's exam settings could not be read. Try again in a minute; if it lasts, tell your administrator." });
  } else {
    sendProblem(res, {
      status: 503, code: "organization_unavailable", title: "Organization unavailable", retryAfter: 30,
      detail: "The organization's settings could not be read (the resolver failed; it has been logged).",
    });
  }
}
