/**
 * The roster (NRPS) and service access against a careless or hostile LMS (the stand-in of
 * test/support/fake-lms.ts): a roster ignoring the role filter or listing a member twice,
 * a next page or redirect to another origin; what goes to the token endpoint; a token in
 * a Redis fleet's share that is past its end by this instance's clock.
 */
import { createPublicKey } from "node:crypto";
import { decodeProtectedHeader, jwtVerify } from "jose";
import { beforeAll, describe, expect, it, vi } from "vitest";
import type { Registration } from "../../src/lti/lms/registrations.js";
import { readRoster } from "../../src/lti/services/roster.js";
import { LTI_SCOPES, ServiceAccessError, tokenKey, type ServiceAccess } from "../../src/lti/lms/service-access.js";
import { fleetTokenShare } from "../../src/lti/lms/service-token-share.js";
import { fleetReady, redisFleet } from "../../src/fleet/redis-fleet.js";
import { freshAccess, json, NRPS, ROLE, useFakeLms, withOtherLms, type FakeLms } from "../support/fake-lms.js";
import { TOOL_KEY_PEM } from "../support/lti.js";
import { dropPrefix, randomPrefix, REDIS_URL, redisOrSkip, SECRET } from "../support/redis.js";

const redisUp = await redisOrSkip("LMS tokens shared by a Redis fleet");

let lms: FakeLms;
let registration: Registration;
let access: ServiceAccess;

const fake = useFakeLms();
beforeAll(() => {
  ({ lms, registration } = fake);
});
const fresh = () => {
  access = freshAccess();
};

describe("NRPS paging against a careless LMS", () => {
  it("re-checks the role filter, skips a member listed twice, and asks for the page size", async () => {
    fresh();
    lms.handle = (_hit, res) => json(res, 200, {
      members: [
        { user_id: "teacher", roles: [`${ROLE}Instructor`] },
        { user_id: "s1", roles: [`${ROLE}Learner`] },
        { user_id: "mentor", roles: [`${ROLE}Mentor`] },
        { user_id: "s1", roles: [`${ROLE}Learner`] },
        { user_id: "s2", roles: ["Learner"] },
      ],
    });
    const read = await readRoster(access, registration, `${lms.url}/nrps`, { maxPages: 5, pageSize: 37 });
    expect(read.learners.map((m) => m.user_id)).toEqual(["s1", "s2"]);
    expect(read.skipped).toBe(2);
    const asked = lms.to("GET", "/nrps")[0]!;
    expect(asked.query.get("limit")).toBe("37");
    expect(asked.query.get("role")).toBe(`${ROLE}Learner`);
    expect(new URLSearchParams(lms.to("POST", "/token")[0]!.body).get("scope")).toBe(LTI_SCOPES.memberships);
  });

  it("reads a roster of exactly maxPages pages, and refuses one a page longer", async () => {
    fresh();
    lms.handle = (hit, res) => {
      const page = Number(hit.query.get("page") ?? 1);
      json(res, 200, { members: [{ user_id: `s${page}`, roles: [`${ROLE}Learner`] }] }, page < 3 ? { Link: `</nrps?page=${page + 1}>; rel="next"` } : {});
    };
    const read = await readRoster(access, registration, `${lms.url}/nrps`, { maxPages: 3, pageSize: 50 });
    expect(read).toMatchObject({ pages: 3, learners: [{ user_id: "s1" }, { user_id: "s2" }, { user_id: "s3" }] });
    const error = await readRoster(access, registration, `${lms.url}/nrps`, { maxPages: 2, pageSize: 50 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServiceAccessError);
    expect((error as Error).message).toMatch(/more than 2 pages/);
    expect(lms.to("GET", "/nrps")).toHaveLength(5);
  });

  it("does not follow a next page on another origin: the token never goes there", async () => {
    fresh();
    await withOtherLms(async (other) => {
    other.handle = (_hit, res) => json(res, 200, { members: [] });
    lms.handle = (_hit, res) => json(res, 200, { members: [{ user_id: "s1", roles: [`${ROLE}Learner`] }] }, { Link: `<${other.url}/nrps?page=2>; rel="next"` });
    const error = await readRoster(access, registration, `${lms.url}/nrps`, { maxPages: 5, pageSize: 50 }).catch((e: unknown) => e);
    expect((error as ServiceAccessError).kind).toBe("unsafe_url");
    expect((error as Error).message).toContain("another origin");
    expect(other.hits).toEqual([]);
    });
  });
});

describe("service access: what goes to the token endpoint and where the token goes", () => {
  it("the client assertion: signed by the tool's key, iss = sub = client id, aud = token URL, 5 minutes, a fresh jti, the deployment", async () => {
    fresh();
    await access.token(registration, [LTI_SCOPES.score, LTI_SCOPES.lineItem]);
    await access.token(registration, [LTI_SCOPES.memberships]);
    const forms = lms.to("POST", "/token").map((h) => new URLSearchParams(h.body));
    expect(forms).toHaveLength(2);
    expect(forms[0]!.get("grant_type")).toBe("client_credentials");
    expect(forms[0]!.get("client_assertion_type")).toBe("urn:ietf:params:oauth:client-assertion-type:jwt-bearer");
    expect(forms[0]!.get("scope")).toBe([LTI_SCOPES.lineItem, LTI_SCOPES.score].sort().join(" "));
    const jtis: unknown[] = [];
    for (const form of forms) {
      const assertion = form.get("client_assertion")!;
      expect(decodeProtectedHeader(assertion)).toMatchObject({ alg: "RS256", kid: "tool-1" });
      const { payload } = await jwtVerify(assertion, createPublicKey(TOOL_KEY_PEM), { issuer: "client-9", subject: "client-9", audience: `${lms.url}/token` });
      // Issued 5 s back (a token endpoint's clock a little behind), still 5 minutes from now.
      expect(payload.exp! - payload.iat!).toBe(305);
      expect(payload.iat!).toBeLessThanOrEqual(Math.floor(Date.now() / 1000) - 5);
      expect(payload["https://purl.imsglobal.org/spec/lti/claim/deployment_id"]).toBe("dep-1");
      jtis.push(payload.jti);
    }
    expect(new Set(jtis).size).toBe(2);
  });

  it("stops using a token 60 s before it expires", async () => {
    fresh();
    const start = Date.now();
    vi.useFakeTimers({ toFake: ["Date"], now: start });
    const first = await access.token(registration, [LTI_SCOPES.score]);
    vi.setSystemTime(start + 3_540_000 - 1_000); // 59 min - 1 s: still used
    expect(await access.token(registration, [LTI_SCOPES.score])).toBe(first);
    vi.setSystemTime(start + 3_540_000 + 1_000); // 59 min + 1 s: inside the last minute
    expect(await access.token(registration, [LTI_SCOPES.score])).not.toBe(first);
    expect(lms.to("POST", "/token")).toHaveLength(2);
  });

  it("does not follow a service's redirect: the bearer token stays with the LMS", async () => {
    fresh();
    await withOtherLms(async (other) => {
    other.handle = (_hit, res) => json(res, 200, { members: [] });
    lms.handle = (_hit, res) => void res.writeHead(302, { Location: `${other.url}/nrps` }).end();
    const error = await access.call(registration, [LTI_SCOPES.memberships], { url: `${lms.url}/nrps`, accept: NRPS }).catch((e: unknown) => e);
    expect((error as ServiceAccessError).kind).toBe("unreachable");
    expect((error as Error).message).toContain("redirect 302");
    expect(other.hits).toEqual([]);
    });
  });
});

describe.runIf(redisUp)("service tokens shared by a Redis fleet", () => {
  it("does not use a token from the fleet's share that is past its end by this instance's clock: asks the LMS for a fresh one", async () => {
    const prefix = randomPrefix("token-share");
    const fleet = redisFleet({ url: REDIS_URL, secret: SECRET, prefix, commandTimeoutMs: 3_000 });
    try {
      expect(await fleetReady(fleet)).toBe(true);
      const share = fleetTokenShare(fleet, 15_000)!;
      const start = Date.now();
      // Another instance shares a token usable for a minute by its clock; Redis keeps it that long by its own.
      await share.put(tokenKey(registration, [LTI_SCOPES.score]), { token: "tok-of-another-instance", until: start + 60_000 });
      // This instance's clock runs two minutes ahead: the token is past its end here, though still in Redis.
      vi.useFakeTimers({ toFake: ["Date"], now: start + 120_000 });
      expect((await share.get(tokenKey(registration, [LTI_SCOPES.score])))?.token).toBe("tok-of-another-instance");
      const token = await freshAccess(share).token(registration, [LTI_SCOPES.score]);
      expect(token).not.toBe("tok-of-another-instance");
      expect(token).toMatch(/^tok-\d+$/);
      expect(lms.to("POST", "/token")).toHaveLength(1);
    } finally {
      vi.useRealTimers();
      await fleet.close();
      await dropPrefix(prefix);
    }
  });
});
