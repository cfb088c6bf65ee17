/**
 * The router as the OpenAPI tests see it: every route mounted, its platform a closed port
 * (127.0.0.1:9), so a route that needs the platform answers an upstream failure. Closed
 * after the file's tests.
 */
import { afterAll } from "vitest";
import { createPlatformClient } from "../../src/platform/client.js";
import { oralAssessments } from "../../src/router/index.js";
import { memoryStore } from "../../src/store/memory.js";
import { TEST_KEY } from "./keys.js";

export function offlineRouter(): ReturnType<typeof oralAssessments> {
  const platform = createPlatformClient({ apiKey: TEST_KEY, baseUrl: "http://127.0.0.1:9" });
  const router = oralAssessments({ canLaunch: "any-signed-in-user", platform, store: memoryStore(), isInstructor: () => true });
  afterAll(async () => {
    await router.close();
    platform.close();
  });
  return router;
}
