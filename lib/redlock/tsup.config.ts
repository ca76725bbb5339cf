import { defineConfig } from "tsup";

// ESM and CommonJS builds with a declaration file for each, so `import` and `require` both get
// types that match what they load (checked by @arethetypeswrong/cli in test/package). `protocol` is
// the wire formats alone, browser-safe, for readers that must not load the Node client.
export default defineConfig({
  entry: ["index.ts", "protocol.ts"],
  format: ["esm", "cjs"],
  // Each entry whole in its own file (no shared chunk): the protocol is small, and the package's
  // file list stays fixed.
  splitting: false,
  dts: true,
  clean: true,
  // import.meta.url (used to load the optional OpenTelemetry API) has a CommonJS equivalent.
  shims: true,
  target: "node18",
  platform: "node",
  tsconfig: "tsconfig.build.json",
});
