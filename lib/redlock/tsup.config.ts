import { defineConfig } from "tsup";

// ESM and CommonJS builds with a declaration file for each, so `import` and `require` both get
// types that match what they load (checked by @arethetypeswrong/cli in test/package).
export default defineConfig({
  entry: ["index.ts"],
  format: ["esm", "cjs"],
  dts: true,
  clean: true,
  // import.meta.url (used to load the optional OpenTelemetry API) has a CommonJS equivalent.
  shims: true,
  target: "node18",
  platform: "node",
  tsconfig: "tsconfig.build.json",
});
