import js from "@eslint/js";
import tseslint from "typescript-eslint";
import nextVitals from "eslint-config-next/core-web-vitals";

export default tseslint.config(
  {
    ignores: [
      ".next/**",
      "node_modules/**",
      ".data/**",
      "test-results/**",
      "playwright-report/**",
      "next-env.d.ts",
      "lib/redlock/dist/**",
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  ...nextVitals,
  {
    rules: {
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_" },
      ],
    },
  },
  {
    // Programs run by a consumer project in the package test: plain Node, CommonJS allowed.
    files: ["test/package/fixtures/**"],
    languageOptions: {
      globals: {
        require: "readonly",
        module: "readonly",
        process: "readonly",
        console: "readonly",
        setTimeout: "readonly",
      },
    },
    rules: { "@typescript-eslint/no-require-imports": "off" },
  },
  {
    // No React outside app/, components/ and hooks/: `use…` helpers there are not hooks.
    files: ["lib/redlock/**", "lib/server/**", "test/**", "scripts/**", "bench/**", "e2e/**"],
    rules: { "react-hooks/rules-of-hooks": "off" },
  },
  // Imports flow one way: app -> components -> hooks -> lib.
  {
    // A shared component never reaches into a route's folder.
    files: ["components/**"],
    rules: { "no-restricted-imports": ["error", { patterns: ["@/app/*"] }] },
  },
  {
    files: ["hooks/**"],
    rules: { "no-restricted-imports": ["error", { patterns: ["@/app/*", "@/components/*"] }] },
  },
  {
    files: ["lib/**"],
    rules: {
      "no-restricted-imports": ["error", { patterns: ["@/app/*", "@/components/*", "@/hooks/*"] }],
    },
  },
  {
    // The Redlock core is a standalone library: it imports nothing of the app.
    files: ["lib/redlock/**"],
    rules: {
      "no-restricted-imports": [
        "error",
        { patterns: ["@/*", "../server/*", "../api/*", "next", "next/*", "react", "react-dom"] },
      ],
    },
  },
);
