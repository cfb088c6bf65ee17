/** The storm options of `oralAssessments()`: every mistake reported at once, with its fix. */
import { describe, expect, it } from "vitest";
import { ConfigurationError, createPlatformClient, memoryStore, oralAssessments } from "../../src/index.js";
import { TEST_KEY } from "../support/keys.js";

const platform = createPlatformClient({ apiKey: TEST_KEY, baseUrl: "http://127.0.0.1:9" });

function problemsOf(fn: () => unknown): string[] {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigurationError);
    return (error as ConfigurationError).problems.map((p) => p.option);
  }
  throw new Error("expected a ConfigurationError");
}

describe("storm options", () => {
  it("lists every invalid launch and prewarm option at once", () => {
    const options = problemsOf(() => oralAssessments({ canLaunch: "any-signed-in-user",
      platform,
      store: memoryStore(),
      launchWaitMs: 10,
      waitingPageAfterMs: 60_000,
      roster: [] as never,
      prewarm: { tokenTtlMs: 60_000, minTokenLifeMs: 60_000, budgetShare: 2, concurrency: 0, maxRoster: -1, leadMs: 1.5 },
    }));
    expect(options.sort()).toEqual([
      "launchWaitMs", "prewarm.budgetShare", "prewarm.concurrency", "prewarm.leadMs", "prewarm.maxRoster",
      "prewarm.minTokenLifeMs", "roster", "waitingPageAfterMs",
    ]);
  });

  it("accepts the defaults and sensible values", async () => {
    const router = oralAssessments({ canLaunch: "any-signed-in-user",
      platform, store: memoryStore(), launchWaitMs: 60_000, waitingPageAfterMs: 0, roster: () => [],
      prewarm: { tokenTtlMs: 600_000, minTokenLifeMs: 120_000, budgetShare: 1, concurrency: 1, maxRoster: 10, leadMs: 0, keepAfterStartMs: 0 },
    });
    await router.close();
  });

  it("names problems after `prepare`, the option's name, and still accepts `prewarm` (deprecated) but not both", () => {
    expect(problemsOf(() => oralAssessments({ canLaunch: "any-signed-in-user", platform, store: memoryStore(), prepare: { budgetShare: 0, concurrency: 0, keepFinishedMs: -1 } })).sort())
      .toEqual(["prepare.budgetShare", "prepare.concurrency", "prepare.keepFinishedMs"]);
    expect(problemsOf(() => oralAssessments({ canLaunch: "any-signed-in-user", platform, store: memoryStore(), prepare: {}, prewarm: {} }))).toEqual(["prewarm"]);
  });

  it("gives a `prewarm` object the same effect as `prepare`: its maxRoster limits the roster", async () => {
    for (const key of ["prepare", "prewarm"] as const) {
      const router = oralAssessments({ canLaunch: "any-signed-in-user", platform, store: memoryStore(), [key]: { maxRoster: 1 } });
      // maxRoster 1 allows one student; two are refused (programmatic API, same checks as the route).
      const student = (n: number) => ({ email: `s${n}@school.test`, firstName: "S", lastName: `${n}`, orgInternalId: `u${n}` });
      const refused = await router.prepare("exam-1", { startAt: new Date(Date.now() + 60_000), roster: [student(1), student(2)] }).catch((e: unknown) => e);
      expect((refused as { errors?: { path: string }[] }).errors?.map((e) => e.path)).toEqual(["roster"]);
      await router.close();
    }
  });
});
