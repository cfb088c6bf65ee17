/**
 * What one score post's outcome tells the LMS's breaker and pause (src/lti/gradebook/lms-gate.ts):
 * a 429 proves neither that the LMS works nor that it fails (its Retry-After pauses it instead),
 * so a half-open breaker's probe answered 429 neither closes nor reopens it; a 5xx or no answer
 * is a failure; any other answer proves the LMS up. The pause's length: the LMS's Retry-After,
 * capped. The end-to-end pauses and breaker are in gradebook-delivery.test.ts and gradebook.test.ts.
 */
import { describe, expect, it } from "vitest";
import { pauseOf, verdictOf } from "../../src/lti/gradebook/lms-gate.js";
import { SendFailure } from "../../src/lti/gradebook/send-failure.js";

const answered = (status: number, retryAfterMs?: number) => new SendFailure(`LMS answered ${status}`, status >= 500 || status === 429, { status, ...(retryAfterMs === undefined ? {} : { retryAfterMs }) });

describe("the LMS gate's reading of a score post", () => {
  it("a 429 is neutral for the breaker; 5xx and no answer are failures; other answers are successes", () => {
    expect(verdictOf(undefined)).toBe("success");
    expect(verdictOf(answered(429, 30_000))).toBe("neutral");
    for (const status of [500, 502, 503, 504]) expect(verdictOf(answered(status)), String(status)).toBe("failure");
    for (const status of [400, 401, 403, 404, 422]) expect(verdictOf(answered(status)), String(status)).toBe("success");
    expect(verdictOf(new SendFailure("timed out", true))).toBe("failure");
    expect(verdictOf(new SendFailure("refused here: not sent", false))).toBe("neutral");
    expect(verdictOf(new Error("a bug"))).toBe("failure");
  });

  it("a 429 or 503 pauses the LMS for its Retry-After; other answers do not pause it", () => {
    expect(pauseOf(answered(429, 30_000))).toBe(30_000);
    expect(pauseOf(answered(503, 5_000))).toBe(5_000);
    for (const status of [500, 502, 400]) expect(pauseOf(answered(status, 5_000)), String(status)).toBeUndefined();
    expect(pauseOf(undefined)).toBeUndefined();
  });
});
