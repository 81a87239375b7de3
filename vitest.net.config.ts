import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const root = fileURLToPath(new URL(".", import.meta.url));

/**
 * Network tests: real WireGuard tunnels through the gateway agent in network
 * namespaces (e2e/net). They need root, /dev/net/tun, wireguard-go, wg, wg-quick and ip, and
 * skip with a printed reason otherwise. One file at a time: they share address ranges and
 * the console build. No database setup here: each test starts its own console.
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
    include: ["e2e/net/**/*.test.ts"],
    pool: "forks",
    maxWorkers: 1,
    fileParallelism: false,
    isolate: true,
    // The console build (ensureBuild) may run in beforeAll: allow it.
    hookTimeout: 20 * 60_000,
    testTimeout: 180_000,
    teardownTimeout: 60_000,
  },
});
