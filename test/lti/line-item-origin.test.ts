/**
 * Where the tool's bearer token may go when the LMS names the line item (the stand-in LMS of
 * test/support/fake-lms.ts, plain http on 127.0.0.1 like a local LMS): only an https URL
 * (plain-http loopback with `lti.allowLoopbackHttp`) on the origin of the course's
 * `lineitems` URL the id came from. A line item listed, made, or kept from before that is on
 * another origin or plain http to another host is refused with nothing sent there, and the
 * entry fails with the reason. Without `allowLoopbackHttp`, a plain-http loopback service URL
 * gets no request at all (not even a token request). A line item the tool makes says
 * `gradesReleased: false` and carries a label of at most 100 characters.
 */
import { describe, expect, it } from "vitest";
import { ProblemList } from "../../src/core/configuration-error.js";
import { agsSender } from "../../src/lti/gradebook/ags.js";
import { readGradebookOptions, type GradebookSettings } from "../../src/lti/options/gradebook-options.js";
import { ScoreOutbox } from "../../src/lti/gradebook/outbox.js";
import { resolveLtiSettings } from "../../src/lti/settings/settings.js";
import { createServiceAccess, LTI_SCOPES, ServiceAccessError, type ServiceAccess } from "../../src/lti/lms/service-access.js";
import { memoryStore } from "../../src/store/memory.js";
import type { LtiScoreEntry } from "../../src/store/lti-gradebook-types.js";
import type { OralStoreWithLti } from "../../src/store/types.js";
import { freshAccess, json, lmsGate, quiet, useFakeLms, withOtherLms, type FakeLms } from "../support/fake-lms.js";
import { TOOL_KEY_PEM } from "../support/lti.js";

const ALL_AGS = [LTI_SCOPES.lineItem, LTI_SCOPES.lineItemReadonly, LTI_SCOPES.score];

function settings(extra: Partial<GradebookSettings> = {}): GradebookSettings {
  const problems = new ProblemList();
  const s = readGradebookOptions({ firstRetryMs: 600_000, maxRetryMs: 3_600_000, ...extra }, problems)!;
  problems.throwIfAny("test");
  return s;
}

function entry(lms: FakeLms, label = "Oral exam exam-1"): LtiScoreEntry {
  return {
    id: "s1", key: { issuer: lms.url, clientId: "client-9", deploymentId: "dep-1", contextId: "course-1", kind: "oral", examId: "exam-1" },
    userId: "u1", student: { email: "u1@school.example" }, label, ags: { lineItems: `${lms.url}/lineitems`, scope: ALL_AGS },
    score: { activityProgress: "Started", gradingProgress: "NotReady", timestamp: new Date().toISOString(), comment: "Started." },
    queuedAt: new Date().toISOString(),
  };
}

const fake = useFakeLms();
const scoresPosted = (lms: FakeLms) => lms.hits.filter((h) => h.method === "POST" && h.path.endsWith("/scores"));

async function deliver(store: OralStoreWithLti, access: ServiceAccess, s = settings()) {
  const send = agsSender({ store, access, settings: s, logger: quiet, loopbackHttp: true, registration: async () => fake.registration });
  await new ScoreOutbox(store, send, s, quiet, lmsGate(s.perLmsConcurrency)).drain();
  return (await store.listLtiScores("default", { kind: "oral", examId: "exam-1", limit: 10 }))[0]!;
}

describe("a line item id the LMS names", () => {
  it("listed on another origin: refused, the token never goes there", async () => {
    const { lms } = fake;
    await withOtherLms(async (other) => {
      other.handle = (_hit, res) => json(res, 204, undefined);
      lms.handle = (hit, res) => (hit.method === "GET" && hit.path === "/lineitems" ? json(res, 200, [{ id: `${other.url}/lineitems/x`, resourceId: "exam-1" }]) : json(res, 404, {}));
      const store = memoryStore();
      await store.addLtiScores("default", [entry(lms)]);
      const r = await deliver(store, freshAccess());
      expect(other.hits).toEqual([]);
      expect(r).toMatchObject({ state: "failed", lastError: expect.stringContaining(`${other.url}, not an https URL on the origin of the course's line items`) });
      expect(await store.getLtiLineItem("default", entry(lms).key)).toBeUndefined();
    });
  });

  it("made on another origin, or at a plain-http URL: refused, nothing sent there", async () => {
    const { lms } = fake;
    await withOtherLms(async (other) => {
      for (const id of [`${other.url}/lineitems/made`, "http://192.0.2.2/lineitems/made"]) {
        lms.hits.length = 0;
        lms.handle = (hit, res) => {
          if (hit.method === "GET" && hit.path === "/lineitems") return json(res, 200, []);
          if (hit.method === "POST" && hit.path === "/lineitems") return json(res, 201, { id });
          json(res, 404, {});
        };
        const store = memoryStore();
        await store.addLtiScores("default", [entry(lms)]);
        const r = await deliver(store, freshAccess());
        expect(r, id).toMatchObject({ state: "failed", lastError: expect.stringContaining("the tool's token is not sent there") });
        expect(scoresPosted(lms)).toEqual([]);
      }
      expect(other.hits).toEqual([]);
    });
  });

  it("kept from before on another origin: refused too", async () => {
    const { lms } = fake;
    await withOtherLms(async (other) => {
      const store = memoryStore();
      await store.putLtiLineItem("default", entry(lms).key, `${other.url}/lineitems/old`);
      await store.addLtiScores("default", [entry(lms)]);
      const r = await deliver(store, freshAccess());
      expect(r.state).toBe("failed");
      expect(other.hits).toEqual([]);
    });
  });

  it("made by the tool: gradesReleased false (unless the option says true), the label cut to 100 characters", async () => {
    const { lms } = fake;
    for (const released of [false, true]) {
      lms.hits.length = 0;
      lms.handle = (hit, res) => {
        if (hit.method === "GET" && hit.path === "/lineitems") return json(res, 200, []);
        if (hit.method === "POST" && hit.path === "/lineitems") return json(res, 201, { id: `${lms.url}/lineitems/made` });
        if (hit.method === "POST" && hit.path === "/lineitems/made/scores") return json(res, 204, undefined);
        json(res, 404, {});
      };
      const store = memoryStore();
      await store.addLtiScores("default", [entry(lms, "L".repeat(180))]);
      const r = await deliver(store, freshAccess(), settings(released ? { gradesReleased: true } : {}));
      expect(r.state).toBe("sent");
      const made = JSON.parse(lms.to("POST", "/lineitems")[0]!.body) as { label: string; gradesReleased: boolean; scoreMaximum: number };
      expect(made).toMatchObject({ gradesReleased: released, scoreMaximum: 100 });
      expect(made.label).toBe("L".repeat(100));
    }
  });
});

describe("a plain-http loopback service URL without allowLoopbackHttp", () => {
  it("gets no request at all: no token asked, nothing sent", async () => {
    const { lms } = fake;
    lms.hits.length = 0;
    const problems = new ProblemList();
    const keys = resolveLtiSettings({ keys: [{ kid: "tool-1", privateKey: TOOL_KEY_PEM }], registrations: [] }, problems)!.keys;
    const access = createServiceAccess({ keys, logger: quiet });
    const refused = await access.call(fake.registration, ALL_AGS, { url: `${lms.url}/lineitems`, accept: "application/json" }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ServiceAccessError);
    expect(refused).toMatchObject({ kind: "unsafe_url", message: expect.stringContaining("lti.allowLoopbackHttp") });
    expect(lms.hits).toEqual([]);
  });
});
