/**
 * The link's AGS service (src/lti/services/ags.ts) against a stand-in LMS over HTTP
 * (test/support/fake-lms.ts): each method checks its scope by name and sends nothing
 * without it; a results read follows the LMS's paging through the one bounded reader
 * (next pages on the first page's origin only, at most 5 pages), keeps only the asked
 * learner's results and the well-formed fields; one token serves every call of the link.
 */
import { beforeAll, describe, expect, it } from "vitest";
import type { Registration } from "../../src/lti/lms/registrations.js";
import { LTI_SCOPES, ServiceAccessError } from "../../src/lti/lms/service-access.js";
import { AssignmentsGradesService } from "../../src/lti/services/ags.js";
import { freshAccess, json, useFakeLms, withOtherLms, type FakeLms } from "../support/fake-lms.js";

let lms: FakeLms;
let registration: Registration;
const fake = useFakeLms();
beforeAll(() => {
  ({ lms, registration } = fake);
});

const service = (scope: string[]) => new AssignmentsGradesService(freshAccess(), registration, { lineItem: `${lms.url}/li/1?course=7`, lineItems: `${lms.url}/li`, scope });

describe("the AGS service", () => {
  it("checks each call's scope by name: without it nothing is sent, not even a token request", async () => {
    lms.hits.length = 0;
    const ags = service([LTI_SCOPES.score]);
    expect(ags.can("score")).toBe(true);
    expect(ags.can("result.readonly")).toBe(false);
    for (const call of [() => ags.results(`${lms.url}/li/1`, "u1"), () => ags.lineItem(`${lms.url}/li/1`), () => ags.createLineItem({ label: "x" }), () => ags.deleteLineItem(`${lms.url}/li/1`)]) {
      const error = await call().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ServiceAccessError);
      expect((error as ServiceAccessError).kind).toBe("no_scope");
    }
    expect(lms.hits).toEqual([]);
  });

  it("a results read: the learner's, page after page, the query kept, one token for the link's granted scopes", async () => {
    lms.hits.length = 0;
    lms.handle = (hit, res) => {
      const page = Number(hit.query.get("page") ?? 1);
      const rows = [
        { userId: "u1", resultScore: page === 2 ? 17 : undefined, resultMaximum: 20, comment: "ok", scoreOf: "x" },
        { userId: "u2", resultScore: 3 },
        { userId: "u1", resultScore: "seventeen", resultMaximum: -1 },
      ];
      json(res, 200, rows, page < 2 ? { Link: `</li/1/results?course=7&user_id=u1&page=2>; rel="next"` } : {});
    };
    const ags = service([LTI_SCOPES.score, LTI_SCOPES.resultReadonly, LTI_SCOPES.lineItemReadonly]);
    const results = await ags.results(`${lms.url}/li/1?course=7`, "u1");
    expect(results).toEqual([
      { userId: "u1", resultMaximum: 20, comment: "ok" }, { userId: "u1" },
      { userId: "u1", resultScore: 17, resultMaximum: 20, comment: "ok" }, { userId: "u1" },
    ]);
    const asked = lms.to("GET", "/li/1/results");
    expect(asked).toHaveLength(2);
    expect(asked[0]!.query.get("user_id")).toBe("u1");
    expect(asked[0]!.query.get("course")).toBe("7");
    expect(new URLSearchParams(lms.to("POST", "/token")[0]!.body).get("scope")).toBe([LTI_SCOPES.lineItemReadonly, LTI_SCOPES.resultReadonly, LTI_SCOPES.score].sort().join(" "));
  });

  it("results: refuses more than 5 pages, and a next page on another origin (nothing sent there)", async () => {
    const ags = service([LTI_SCOPES.resultReadonly]);
    lms.hits.length = 0;
    lms.handle = (hit, res) => json(res, 200, [], { Link: `</li/1/results?page=${Number(hit.query.get("page") ?? 1) + 1}>; rel="next"` });
    const endless = await ags.results(`${lms.url}/li/1`, "u1").catch((e: unknown) => e);
    expect((endless as ServiceAccessError).kind).toBe("bad_answer");
    expect(lms.to("GET", "/li/1/results")).toHaveLength(5);
    await withOtherLms(async (other) => {
      lms.handle = (_hit, res) => json(res, 200, [], { Link: `<${other.url}/li/1/results?page=2>; rel="next"` });
      const away = await ags.results(`${lms.url}/li/1`, "u1").catch((e: unknown) => e);
      expect((away as ServiceAccessError).kind).toBe("unsafe_url");
      expect(other.hits).toEqual([]);
    });
  });
});
