/**
 * The URLs a launch's claims give the tool for LTI Advantage: the roster (NRPS), the
 * gradebook's line items (AGS) and the deep-linking return. The tool sends its bearer
 * token to the first two and the browser the signed placement to the third, so each must
 * be https, or http on the loopback interface (a local LMS in development), with no user
 * name or password: the rule every URL from an LMS follows (src/lti/shared/lms-url.ts). A plain
 * http URL to another host is not used: no roster, no gradebook, a refused placement. A
 * launch with no course (context id) gets no gradebook either. The bearer token goes to a
 * plain-http loopback URL only with `lti.allowLoopbackHttp` (development): without it such
 * a launch has no gradebook (and the service access refuses the URL: line-item-origin.test.ts).
 */
import { describe, expect, it } from "vitest";
import { CLAIM } from "../../src/lti/shared/claims.js";
import { gradebookOfLaunch } from "../../src/lti/launch/launch-gradebook.js";
import { readLaunchClaims } from "../../src/lti/launch/typed-launch.js";

const ACCEPTED = ["https://lms.example/api/x", "http://127.0.0.1:8080/api/x", "http://localhost/api/x"];
const REFUSED = ["http://lms.example/api/x", "https://user:secret@lms.example/api/x", "ftp://lms.example/x", "not a url", ""];

const registration = { issuer: "https://lms.example", clientId: "c" } as Parameters<typeof gradebookOfLaunch>[0]["registration"];
/** The gradebook of a launch with these claims, read as the launch reads them. */
const gradebookOf = (claims: Record<string, unknown>, loopbackHttp = true) => gradebookOfLaunch({ ...readLaunchClaims(claims), registration, deploymentId: "d" }, loopbackHttp);
const gradebookWith = (lineitem: string, loopbackHttp = true) => gradebookOf({
  sub: "u1", [CLAIM.context]: { id: "course-1" }, [CLAIM.agsEndpoint]: { lineitem, lineitems: lineitem, scope: ["https://purl.imsglobal.org/spec/lti-ags/scope/score"] },
}, loopbackHttp);
const placementWith = (returnUrl: string) => readLaunchClaims({
  [CLAIM.deepLinkingSettings]: { deep_link_return_url: returnUrl, accept_types: ["ltiResourceLink"], accept_presentation_document_targets: ["iframe"] },
}).services.deepLinking;
const membershipsUrlOf = (url: string) => readLaunchClaims({ [CLAIM.namesRoleService]: { context_memberships_url: url } }).services.membershipsUrl;

describe("the LTI Advantage URLs a launch gives", () => {
  it.each(ACCEPTED)("uses %s for the roster, the gradebook and the placement's return", (url) => {
    expect(membershipsUrlOf(url)).toBe(url);
    expect(gradebookWith(url)?.ags.lineItem).toBe(url);
    expect(placementWith(url)).toHaveProperty("settings");
  });

  it.each(REFUSED)("does not use %j: no roster, no gradebook, the placement refused at deep_link_return_url", (url) => {
    expect(membershipsUrlOf(url)).toBeUndefined();
    expect(gradebookWith(url)).toBeUndefined();
    expect(placementWith(url)).toMatchObject({ refused: { check: "deep_link_return_url" } });
  });

  it.each(ACCEPTED.filter((u) => u.startsWith("http:")))("gives no gradebook for %s without allowLoopbackHttp (the default)", (url) => {
    expect(gradebookWith(url, false)).toBeUndefined();
    expect(gradebookWith("https://lms.example/api/x", false)?.ags).toMatchObject({ lineItem: "https://lms.example/api/x", lineItems: "https://lms.example/api/x" });
  });

  it("gives no gradebook to a launch with no course (no context claim), whatever its AGS claim", () => {
    const ags = { lineitem: ACCEPTED[0], scope: ["https://purl.imsglobal.org/spec/lti-ags/scope/score"] };
    expect(gradebookOf({ sub: "u1", [CLAIM.agsEndpoint]: ags })).toBeUndefined();
    expect(gradebookOf({ sub: "u1", [CLAIM.context]: { title: "No id" }, [CLAIM.agsEndpoint]: ags })).toBeUndefined();
    expect(gradebookOf({ sub: "u1", [CLAIM.context]: { id: "course-1" }, [CLAIM.agsEndpoint]: ags })?.course.contextId).toBe("course-1");
  });
});
