import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Every test talks HTTP to real servers on 127.0.0.1; give slow CI machines room.
    testTimeout: 30_000,
    hookTimeout: 60_000,
    globalSetup: ["test/global-setup.ts"],
    setupFiles: ["test/key-canary.setup.ts"],
  },
});
