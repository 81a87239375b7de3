import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const root = fileURLToPath(new URL(".", import.meta.url));

/**
 * Unit and integration tests. One embedded PostgreSQL for the whole run
 * (tests/setup/global.ts), one database per test file cloned from a migrated template
 * (tests/setup/per-file.ts). Playwright specs (e2e/) and benchmarks (bench/) are not ours.
 */
export default defineConfig({
  resolve: {
    alias: [
      { find: /^@\//, replacement: `${root}` },
      // `import "server-only"` marks modules Next.js must keep out of client bundles; here it is a no-op.
      { find: /^server-only$/, replacement: `${root}tests/setup/server-only.ts` },
    ],
  },
  test: {
    environment: "node",
    include: ["lib/**/*.test.ts", "app/**/*.test.ts", "tests/**/*.test.ts", "gateway/**/*.test.ts", "components/**/*.test.ts"],
    exclude: ["e2e/**", "bench/**", "**/node_modules/**", ".next*/**", "data/**"],
    globalSetup: ["tests/setup/global.ts"],
    setupFiles: ["tests/setup/per-file.ts"],
    pool: "forks",
    maxWorkers: 2,
    isolate: true,
    testTimeout: 20_000,
    hookTimeout: 60_000,
    teardownTimeout: 20_000,
  },
});
