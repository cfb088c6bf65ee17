/**
 * The LTI registrations' promises, run against each backend (from store-contract.ts):
 * global (no organization), keyed by (issuer, client id), deployments kept with their
 * registration and never without one.
 */
import { expect, it } from "vitest";
import type { LtiRegistrationInput, OralStoreWithLti } from "../../src/store/types.js";

const CANVAS = "https://canvas.instructure.com";

export function describeLtiContract(open: () => OralStoreWithLti): void {
  const registration = (clientId: string, extra: Partial<LtiRegistrationInput> = {}): LtiRegistrationInput => ({
    issuer: CANVAS, clientId, authorizationUrl: "https://sso.canvaslms.com/api/lti/authorize_redirect",
    jwksUrl: "https://sso.canvaslms.com/api/lti/security/jwks", active: false, acceptNewDeployments: true,
    data: { productFamilyCode: "canvas", nested: { when: undefined, n: 1 } }, createdAt: "2026-11-01T09:00:00.000Z", ...extra,
  });

  it("LTI registrations: given back whole with their deployments, keyed by issuer and client id", async () => {
    const store = open();
    await store.putLtiRegistration(registration("10001", { tokenUrl: "https://school.instructure.com/login/oauth2/token", organization: "north" }));
    await store.putLtiRegistration(registration("10002"));
    expect(await store.putLtiDeployment(CANVAS, "10001", { id: "1:abc", organization: "south" })).toBe(true);
    expect(await store.putLtiDeployment(CANVAS, "10001", { id: "2:def" })).toBe(true);
    expect(await store.getLtiRegistration(CANVAS, "10001")).toEqual({
      ...registration("10001", { tokenUrl: "https://school.instructure.com/login/oauth2/token", organization: "north" }),
      data: { productFamilyCode: "canvas", nested: { n: 1 } },
      deployments: [{ id: "1:abc", organization: "south" }, { id: "2:def" }],
    });
    const other = await store.getLtiRegistration(CANVAS, "10002");
    expect(other).toMatchObject({ clientId: "10002", deployments: [] });
    expect(other).not.toHaveProperty("tokenUrl");
    expect(other).not.toHaveProperty("organization");
    expect(await store.getLtiRegistration(CANVAS, "10003")).toBeUndefined();
    expect(await store.getLtiRegistration("https://other.example", "10001")).toBeUndefined();
  });

  it("LTI registrations: a replaced registration keeps its place and its deployments; latest fields win", async () => {
    const store = open();
    await store.putLtiRegistration(registration("a"));
    await store.putLtiRegistration(registration("b"));
    await store.putLtiDeployment(CANVAS, "a", { id: "d1" });
    await store.putLtiRegistration(registration("a", { jwksUrl: "https://lms.example/keys", active: true, acceptNewDeployments: false }));
    const list = await store.listLtiRegistrations();
    expect(list.map((r) => r.clientId)).toEqual(["a", "b"]);
    expect(list[0]).toMatchObject({ jwksUrl: "https://lms.example/keys", active: true, acceptNewDeployments: false, deployments: [{ id: "d1" }] });
    // A deployment written again takes its new organization, in its old place.
    await store.putLtiDeployment(CANVAS, "a", { id: "d2" });
    await store.putLtiDeployment(CANVAS, "a", { id: "d1", organization: "east" });
    expect((await store.getLtiRegistration(CANVAS, "a"))?.deployments).toEqual([{ id: "d1", organization: "east" }, { id: "d2" }]);
  });

  it("LTI registrations: activated and deleted by key; a deployment of no registration is not written", async () => {
    const store = open();
    await store.putLtiRegistration(registration("a"));
    await store.putLtiDeployment(CANVAS, "a", { id: "d1" });
    expect(await store.setLtiRegistrationActive(CANVAS, "a", true)).toBe(true);
    expect((await store.getLtiRegistration(CANVAS, "a"))?.active).toBe(true);
    expect(await store.setLtiRegistrationActive(CANVAS, "a", false)).toBe(true);
    expect((await store.getLtiRegistration(CANVAS, "a"))?.active).toBe(false);
    expect(await store.setLtiRegistrationActive(CANVAS, "zz", true)).toBe(false);
    expect(await store.putLtiDeployment(CANVAS, "zz", { id: "d1" })).toBe(false);
    expect(await store.deleteLtiRegistration(CANVAS, "a")).toBe(true);
    expect(await store.deleteLtiRegistration(CANVAS, "a")).toBe(false);
    expect(await store.listLtiRegistrations()).toEqual([]);
    // Put again: its old deployments went with it.
    await store.putLtiRegistration(registration("a"));
    expect((await store.getLtiRegistration(CANVAS, "a"))?.deployments).toEqual([]);
  });

  it("LTI registrations: a malformed registration or deployment is refused, nothing written", async () => {
    const store = open();
    await expect(store.putLtiRegistration({ ...registration("a"), jwksUrl: "not a url" })).rejects.toThrow(/jwksUrl/);
    await expect(store.putLtiRegistration({ ...registration("a"), active: "yes" as unknown as boolean })).rejects.toThrow(TypeError);
    await expect(store.putLtiRegistration(registration(""))).rejects.toThrow(TypeError);
    expect(await store.listLtiRegistrations()).toEqual([]);
    await store.putLtiRegistration(registration("a"));
    await expect(store.putLtiDeployment(CANVAS, "a", { id: "" })).rejects.toThrow(TypeError);
    await expect(store.getLtiRegistration(CANVAS, "")).rejects.toThrow(TypeError);
    expect((await store.getLtiRegistration(CANVAS, "a"))?.deployments).toEqual([]);
  });
}
