/** @type {import('next').NextConfig} */
const nextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  // NEXT_DIST_DIR lets a second build (e.g. a server smoke test) run beside the one in .next.
  distDir: process.env.NEXT_DIST_DIR || ".next",
  // ioredis and pino are Node libraries: load them at run time instead of bundling them.
  serverExternalPackages: ["ioredis", "pino", "prom-client"],
};

export default nextConfig;
