import { defineConfig } from "tsup";

// ESM and CommonJS builds with a declaration file for each, so `import` and `require` both get
// types that match what they load (checked by @arethetypeswrong/cli in test/package).
export default defineConfig({
  entry: ["index.ts"],
  format: ["esm", "cjs"],
  dts: true,
  clean: true,
  sourcemap: true,
  target: "node18",
  platform: "node",
  tsconfig: "tsconfig.build.json",
});
