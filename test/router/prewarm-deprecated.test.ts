/**
 * The deprecated `prewarm` option (the earlier name of `prepare`) still works, and says so
 * at start-up: a warn line on the router's logger each time a router is built with it, and
 * one DeprecationWarning per process. `prepare` warns nobody.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createPlatformClient, memoryStore, oralAssessments } from "../../src/index.js";
import { captureLogger } from "../support/canary.js";
import { TEST_KEY } from "../support/keys.js";

const platform = createPlatformClient({ apiKey: TEST_KEY, baseUrl: "http://127.0.0.1:9" });
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const clean of cleanups.splice(0)) await clean();
});

function build(options: { prepare?: object; prewarm?: object }) {
  const logger = captureLogger();
  const router = oralAssessments({ canLaunch: "any-signed-in-user", platform, store: memoryStore(), logger, ...options });
  cleanups.push(() => router.close());
  return logger.lines.filter((l) => l.level === "warn" && l.obj.event === "router_option_deprecated");
}

describe("the deprecated prewarm option", () => {
  it("warns on the logger at start-up, names prepare, and emits one DeprecationWarning per process", async () => {
    const warnings: Error[] = [];
    const listen = (w: Error) => warnings.push(w);
    process.on("warning", listen);
    cleanups.push(() => process.off("warning", listen));

    expect(build({ prepare: { maxRoster: 3 } })).toEqual([]);
    const first = build({ prewarm: { maxRoster: 3 } });
    const second = build({ prewarm: {} });
    expect(first).toHaveLength(1);
    expect(first[0]!.obj).toMatchObject({ option: "prewarm", use: "prepare" });
    expect(first[0]!.msg).toMatch(/prewarm.*deprecated.*prepare/);
    expect(second).toHaveLength(1);

    await new Promise((r) => setImmediate(r));
    const deprecations = warnings.filter((w) => w.name === "DeprecationWarning" && /prewarm/.test(w.message));
    expect(deprecations).toHaveLength(1);
    expect((deprecations[0] as Error & { code?: string }).code).toBe("EOA_ROUTER_PREWARM");
  });
});
