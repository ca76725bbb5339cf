/** @type {import('next').NextConfig} */
const nextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  // ioredis and pino are Node libraries: load them at run time instead of bundling them.
  serverExternalPackages: ["ioredis", "pino", "prom-client"],
};

export default nextConfig;
