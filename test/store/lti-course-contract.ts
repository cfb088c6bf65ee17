/**
 * Course binding's promises (DESIGN.md v3), run against each backend (from
 * store-contract.ts): a class linked to an LMS course is found by the whole course key
 * (issuer, client id, deployment, context) within its organization and nowhere else; a
 * link written twice keeps its first writer; a copied course's exam mapping is per course;
 * an LMS's copy notice is kept per course key.
 */
import { expect, it } from "vitest";
import type { LtiCourseKey, OralStoreWithLti } from "../../src/store/types.js";

const COURSE: LtiCourseKey = { issuer: "https://canvas.instructure.com", clientId: "10001", deploymentId: "1:abc", contextId: "ctx-bio-2026" };
const at = (minute: number) => new Date(Date.UTC(2026, 10, 1, 9, minute)).toISOString();

export function describeLtiCourseContract(open: () => OralStoreWithLti, reopen?: (store: OralStoreWithLti) => OralStoreWithLti): void {
  it("LTI course links: found by the whole course key, in its organization only; a second write keeps the first", async () => {
    const store = open();
    await store.putLtiCourseLink("north", { ...COURSE, classId: "k1", linkedBy: "ines", linkedAt: at(0) });
    await store.putLtiCourseLink("north", { ...COURSE, classId: "k1", linkedBy: "someone-else", linkedAt: at(5) });
    await store.putLtiCourseLink("north", { ...COURSE, classId: "k2", linkedBy: "ines", linkedAt: at(1) });
    expect(await store.getLtiCourseLink("north", COURSE, "k1")).toEqual({ ...COURSE, classId: "k1", linkedBy: "ines", linkedAt: at(0) });
    for (const other of [
      { ...COURSE, contextId: "ctx-bio-2027" }, { ...COURSE, deploymentId: "2:def" }, { ...COURSE, clientId: "10002" }, { ...COURSE, issuer: "https://moodle.example" },
    ]) expect(await store.getLtiCourseLink("north", other, "k1")).toBeUndefined();
    expect(await store.getLtiCourseLink("south", COURSE, "k1")).toBeUndefined();
    expect(await store.getLtiCourseLink("north", COURSE, "k3")).toBeUndefined();
    expect((await store.listLtiCourseLinks("north", { course: COURSE })).map((l) => l.classId)).toEqual(["k1", "k2"]);
    expect(await store.listLtiCourseLinks("south", { course: COURSE })).toEqual([]);
  });

  it("LTI course links: a class's links to every course, oldest first", async () => {
    const store = open();
    const next = { ...COURSE, contextId: "ctx-bio-2027" };
    await store.putLtiCourseLink("north", { ...COURSE, classId: "k1", linkedBy: "ines", linkedAt: at(0) });
    await store.putLtiCourseLink("north", { ...next, classId: "k1", linkedBy: "ada", linkedAt: at(1) });
    await store.putLtiCourseLink("north", { ...next, classId: "k9", linkedBy: "ada", linkedAt: at(2) });
    expect((await store.listLtiCourseLinks("north", { classId: "k1" })).map((l) => [l.contextId, l.linkedBy])).toEqual([["ctx-bio-2026", "ines"], ["ctx-bio-2027", "ada"]]);
    expect(await store.listLtiCourseLinks("south", { classId: "k1" })).toEqual([]);
  });

  it("LTI exam copies: per course and organization; latest wins", async () => {
    const store = open();
    await store.putLtiExamCopy("north", COURSE, "e-old", "e-new");
    expect(await store.getLtiExamCopy("north", COURSE, "e-old")).toBe("e-new");
    expect(await store.getLtiExamCopy("north", { ...COURSE, contextId: "other" }, "e-old")).toBeUndefined();
    expect(await store.getLtiExamCopy("south", COURSE, "e-old")).toBeUndefined();
    expect(await store.getLtiExamCopy("north", COURSE, "e-new")).toBeUndefined();
    await store.putLtiExamCopy("north", COURSE, "e-old", "e-newer");
    expect(await store.getLtiExamCopy("north", COURSE, "e-old")).toBe("e-newer");
    if (reopen) {
      await store.putLtiCourseLink("north", { ...COURSE, classId: "k1", linkedBy: "ines", linkedAt: at(0) });
      const again = reopen(store);
      expect(await again.getLtiExamCopy("north", COURSE, "e-old")).toBe("e-newer");
      expect(await again.getLtiCourseLink("north", COURSE, "k1")).toMatchObject({ linkedBy: "ines" });
    }
  });

  it("LTI course links: a malformed key is refused, nothing written", async () => {
    const store = open();
    await expect(store.putLtiCourseLink("north", { ...COURSE, contextId: "", classId: "k1", linkedBy: "ines", linkedAt: at(0) })).rejects.toThrow(TypeError);
    await expect(store.putLtiCourseLink("north", { ...COURSE, classId: "k1", linkedBy: "ines", linkedAt: "yesterday" })).rejects.toThrow(TypeError);
    await expect(store.putLtiCourseLink("", { ...COURSE, classId: "k1", linkedBy: "ines", linkedAt: at(0) })).rejects.toThrow(TypeError);
    await expect(store.getLtiCourseLink("north", { ...COURSE, issuer: "x".repeat(256) }, "k1")).rejects.toThrow(TypeError);
    await expect(store.listLtiCourseLinks("north", {} as { classId: string })).rejects.toThrow(TypeError);
    await expect(store.putLtiExamCopy("north", COURSE, "e1", "")).rejects.toThrow(TypeError);
    expect(await store.listLtiCourseLinks("north", { course: COURSE })).toEqual([]);
  });

  it("LTI course services: per course and organization, latest wins, kept across a reopen", async () => {
    const store = open();
    const first = { membershipsUrl: "https://canvas.example/api/lti/courses/1/names_and_roles", agsEndpoint: '{"lineitems":"https://canvas.example/api/lti/courses/1/line_items"}', seenAt: at(0) };
    expect(await store.getLtiCourseServices("north", COURSE)).toBeUndefined();
    await store.putLtiCourseServices("north", COURSE, first);
    expect(await store.getLtiCourseServices("north", COURSE)).toEqual(first);
    expect(await store.getLtiCourseServices("south", COURSE)).toBeUndefined();
    expect(await store.getLtiCourseServices("north", { ...COURSE, contextId: "other" })).toBeUndefined();
    const later = { membershipsUrl: undefined, agsEndpoint: undefined, seenAt: at(9) };
    await store.putLtiCourseServices("north", COURSE, later);
    expect(await store.getLtiCourseServices("north", COURSE)).toEqual(later);
    await store.putLtiCourseServices("north", COURSE, first);
    await expect(store.putLtiCourseServices("north", COURSE, { ...first, seenAt: "soon" })).rejects.toThrow(TypeError);
    await expect(store.putLtiCourseServices("north", COURSE, { ...first, membershipsUrl: "x".repeat(2049) })).rejects.toThrow(TypeError);
    if (reopen) expect(await reopen(store).getLtiCourseServices("north", COURSE)).toEqual(first);
  });

  it("LTI course copy notices: per course key (no organization), latest wins, a malformed one refused, kept across a reopen", async () => {
    const store = open();
    const notice = { originContextId: "ctx-bio-2025", noticeId: "7a70e604", noticedAt: at(0) };
    expect(await store.getLtiCourseCopyNotice(COURSE)).toBeUndefined();
    await store.putLtiCourseCopyNotice(COURSE, notice);
    expect(await store.getLtiCourseCopyNotice(COURSE)).toEqual(notice);
    expect(await store.getLtiCourseCopyNotice({ ...COURSE, deploymentId: "2:def" })).toBeUndefined();
    await expect(store.putLtiCourseCopyNotice(COURSE, { ...notice, noticeId: "" })).rejects.toThrow(TypeError);
    await expect(store.putLtiCourseCopyNotice(COURSE, { ...notice, noticedAt: "soon" })).rejects.toThrow(TypeError);
    await expect(store.putLtiCourseCopyNotice({ ...COURSE, contextId: "" }, notice)).rejects.toThrow(TypeError);
    expect(await store.getLtiCourseCopyNotice(COURSE)).toEqual(notice);
    if (reopen) expect(await reopen(store).getLtiCourseCopyNotice(COURSE)).toEqual(notice);
  });
}
