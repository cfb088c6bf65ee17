import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["dist/**", "bench/.ab/**", "bench/.internals/**", "node_modules/**", "test-artifacts/**", "coverage/**"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: "readonly", console: "readonly", URL: "readonly", setTimeout: "readonly",
        clearTimeout: "readonly", setInterval: "readonly", clearInterval: "readonly",
        Buffer: "readonly", fetch: "readonly", AbortController: "readonly",
        document: "readonly", window: "readonly", FormData: "readonly", performance: "readonly",
        setImmediate: "readonly", structuredClone: "readonly", Response: "readonly",
      },
    },
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/no-explicit-any": "error",
    },
  },
);
