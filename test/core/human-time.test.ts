/**
 * Times in people's words: to the minute, the zone named, day before month in English;
 * another locale or zone when given. The comments the gradebook sends an LMS use it.
 */
import { expect, it } from "vitest";
import { humanTime } from "../../src/core/human-time.js";
import { startedEntry, submittedEntry } from "../../src/lti/gradebook/entries.js";

it("writes a time to the minute with its zone, not as ISO", () => {
  expect(humanTime("2026-11-29T04:03:20.993Z")).toBe("29 Nov 2026, 04:03 UTC");
  expect(humanTime(new Date("2026-11-29T23:59:59Z"), { timeZone: "Europe/Paris" })).toBe("30 Nov 2026, 00:59 CET");
  expect(humanTime("2026-11-29T04:03:00Z", { locale: "fr-FR" })).toBe("29 nov. 2026, 04:03 UTC");
  expect(humanTime("not a date")).toBe("not a date");
});

it("words the comments sent to the LMS gradebook with it", () => {
  const learner = { kind: "oral", examId: "exam-1", launch: { launchedAt: "2026-11-29T04:00:00Z", ags: {} } } as unknown as Parameters<typeof startedEntry>[0];
  const at = new Date("2026-11-29T04:03:20.993Z");
  expect(startedEntry(learner, "link-1", at).score.comment).toBe("Started the oral exam on 29 Nov 2026, 04:03 UTC (launched from the LMS).");
  expect(submittedEntry(learner, "mark-1", at).score.comment).toContain("Came back from the oral exam on 29 Nov 2026, 04:03 UTC: submitted");
});
