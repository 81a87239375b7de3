/**
 * The compiled console (scripts/build-server.mjs): what a start loads before it answers. The
 * gateway side, the OpenID provider and the bootstrap are dynamic imports of server.ts, compiled
 * into chunks of their own; a static import added to the start-up path would pull them (and
 * their packages) back into every start. Checked on esbuild's own record of the build.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
// @ts-expect-error -- a plain ES module script without type declarations
import { buildOptions, loadEsbuild } from "../scripts/build-server.mjs";

interface Metafile {
  outputs: Record<string, { imports: { path: string; kind: string; external?: boolean }[]; inputs: Record<string, unknown>; entryPoint?: string }>;
}

const root = process.cwd();
let out = "";
let meta: Metafile;

beforeAll(async () => {
  out = mkdtempSync(join(tmpdir(), "defguard-build-server-"));
  const esbuild = await loadEsbuild(root);
  try {
    const r = await esbuild.build({ ...buildOptions(root, "server", out), metafile: true, sourcemap: false });
    meta = r.metafile as Metafile;
  } finally {
    await esbuild.stop?.();
  }
}, 120_000);
afterAll(() => rmSync(out, { recursive: true, force: true }));

/** Packages and source files reached from the entry through static imports only. */
function startupPath(): { packages: Set<string>; sources: Set<string>; dynamic: Set<string> } {
  const key = (p: string) => relative(root, join(root, p));
  const outputs = new Map(Object.entries(meta.outputs).map(([p, o]) => [key(p), o]));
  const entry = [...outputs].find(([, o]) => o.entryPoint === "server.ts")![0];
  const packages = new Set<string>();
  const sources = new Set<string>();
  const dynamic = new Set<string>();
  const seen = new Set<string>();
  const visit = (p: string) => {
    if (seen.has(p)) return;
    seen.add(p);
    const o = outputs.get(p)!;
    for (const input of Object.keys(o.inputs)) sources.add(input);
    for (const i of o.imports) {
      if (i.external) {
        if (i.kind === "import-statement") packages.add(i.path);
      } else if (i.kind === "import-statement") visit(key(i.path));
      else if (i.kind === "dynamic-import") dynamic.add(key(i.path));
    }
  };
  visit(entry);
  return { packages, sources, dynamic };
}

describe("the compiled console's start-up path", () => {
  it("loads neither the gateway side, the OpenID provider the bootstrap nor Drizzle before it answers", () => {
    const { packages, sources } = startupPath();
    for (const pkg of ["@grpc/grpc-js", "@grpc/proto-loader", "ldapts", "otplib", "oidc-provider", "@node-rs/argon2", "zod", "nodemailer", "drizzle-orm"]) {
      expect([...packages].filter((p) => p === pkg || p.startsWith(`${pkg}/`)), pkg).toEqual([]);
    }
    for (const src of ["lib/grpc/server.ts", "lib/gateways/hub.ts", "lib/jobs/runner.ts", "lib/oidc/http.ts", "lib/oidc/provider.ts", "lib/bootstrap.ts", "lib/events/index.ts", "lib/db/index.ts", "lib/db/schema/index.ts"]) {
      expect(sources.has(src), src).toBe(false);
    }
    // What it does need is there: the database driver and the migration check.
    expect(packages.has("pg")).toBe(true);
    expect(sources.has("lib/db/migrate.ts")).toBe(true);
  });

  it("has the parts it leaves out as chunks under dist/server-chunks/, loaded when needed", () => {
    const { dynamic } = startupPath();
    expect(dynamic.size).toBeGreaterThanOrEqual(4);
    for (const d of dynamic) expect(d.startsWith(`${relative(root, out)}/server-chunks/`), d).toBe(true);
  });
});
