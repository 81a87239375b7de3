/**
 * Users at scale: 10,000 users (one INSERT … SELECT generate_series straight into the running
 * server's embedded database) in 5 groups (every user in one, every 10th in a second), then
 * - GET /api/v1/user (admin, full list), a page of 50, and a search for a page of 50:
 *   sequential requests, p50/p99, payload size;
 * - the /users page in Chromium: time from navigation to the first user row.
 * Targets from the issue (reported, not asserted): list p99 under 150 ms, first rows under 1.5 s.
 */
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { chromium } from "@playwright/test";
import pg from "pg";
import { ensureBuild, E2E_DIST_DIR } from "../../e2e/setup/build";
import { makeTempDir, startServer } from "../../e2e/setup/server";
import { max, median, ms, percentile } from "../lib/stats";
import type { Row, Suite, SuiteContext } from "../lib/types";
import { cookieHeader, signIn, type Cookies } from "../lib/http";

const USERS = Number(process.env.BENCH_USERS_COUNT || 10_000);
const REQUESTS = Number(process.env.BENCH_USERS_REQUESTS || 30);
const PAGE_LOADS = Number(process.env.BENCH_USERS_PAGE_LOADS || 5);
const GROUPS = 5;


async function apiGet(baseURL: string, cookies: Cookies, path: string) {
  const headers: Record<string, string> = {
    cookie: cookieHeader(cookies),
    "x-xsrf-token": decodeURIComponent(cookies["XSRF-TOKEN"] ?? ""),
  };
  const t0 = performance.now();
  const res = await fetch(`${baseURL}/api/v1${path}`, { headers });
  const buf = Buffer.from(await res.arrayBuffer());
  const elapsed = performance.now() - t0;
  return { status: res.status, bytes: buf.length, text: buf.toString("utf8"), elapsed };
}

async function seed(client: pg.Client, log: (m: string) => void): Promise<void> {
  const t0 = performance.now();
  await client.query(
    `insert into users (username, email, first_name, last_name, password_hash)
     select 'user'||g, 'user'||g||'@example.com', 'First'||g, 'Last'||g, null from generate_series(1, $1::int) g`,
    [USERS],
  );
  await client.query(`insert into groups (name) select 'bench-group-'||g from generate_series(1, $1::int) g`, [GROUPS]);
  // Every bench user in one group (by id modulo), every 10th user in a second one too.
  await client.query(
    `insert into group_users (group_id, user_id)
     select g.id, u.id from users u
       join groups g on g.name = 'bench-group-' || (u.id % $1::int + 1)
      where u.username like 'user%'
     union
     select g.id, u.id from users u
       join groups g on g.name = 'bench-group-' || ((u.id + 1) % $1::int + 1)
      where u.username like 'user%' and u.id % 10 = 0`,
    [GROUPS],
  );
  const memberships = (await client.query("select count(*)::int n from group_users")).rows[0].n;
  log(`[users] ${USERS} users, ${GROUPS} groups, ${memberships} memberships inserted in ${ms(performance.now() - t0)} ms`);
}

interface ListResult {
  latencies: number[];
  bytes: number;
  items: number;
}

async function measureList(
  baseURL: string,
  cookies: Cookies,
  path: string,
  countItems: (body: unknown) => number,
  before?: () => Promise<unknown>,
): Promise<ListResult> {
  const warm = await apiGet(baseURL, cookies, path);
  if (warm.status !== 200) throw new Error(`GET ${path} → ${warm.status}: ${warm.text.slice(0, 300)}`);
  const items = countItems(JSON.parse(warm.text));
  const latencies: number[] = [];
  let bytes = warm.bytes;
  for (let i = 0; i < REQUESTS; i++) {
    if (before) await before();
    const r = await apiGet(baseURL, cookies, path);
    if (r.status !== 200) throw new Error(`GET ${path} → ${r.status}`);
    latencies.push(r.elapsed);
    bytes = r.bytes;
  }
  return { latencies, bytes, items };
}

const dash = "-";

async function run(ctx: SuiteContext): Promise<Row[]> {
  await ensureBuild({ root: ctx.root, distDir: E2E_DIST_DIR, log: ctx.log });
  const dir = makeTempDir("defguard-bench-users-");
  const server = await startServer({
    root: ctx.root,
    entry: "server",
    distDir: E2E_DIST_DIR,
    dataDir: join(dir, "data"),
    logFile: join(dir, "server.log"),
  });
  try {
    if (!server.dbPort) throw new Error("no embedded PostgreSQL port in the server output");
    if (!server.adminPassword) throw new Error("no generated admin password in the server output");
    const adminPassword = server.adminPassword;
    const secrets = JSON.parse(readFileSync(join(server.dataDir, "secrets.json"), "utf8")) as { embeddedDbPassword: string };
    const client = new pg.Client({
      host: "127.0.0.1",
      port: server.dbPort,
      user: "defguard",
      password: secrets.embeddedDbPassword,
      database: "defguard",
    });
    await client.connect();
    try {
    await seed(client, ctx.log);
    const cookies = await signIn(server.baseURL, "admin", adminPassword);
    const rows: Row[] = [];

    const apiRow = (measurement: string, r: ListResult): Row => ({
      measurement,
      items: r.items,
      requests: r.latencies.length,
      "p50 ms": ms(percentile(r.latencies, 50)),
      "p99 ms": ms(percentile(r.latencies, 99)),
      "max ms": ms(max(r.latencies)),
      "payload KiB": (r.bytes / 1024).toFixed(1),
    });
    const pageItems = (b: unknown) => {
      const body = b as { data?: unknown[]; pagination?: { total_items?: number } };
      if (!Array.isArray(body.data)) throw new Error("paged response without data[]");
      return body.data.length;
    };

    ctx.log(`[users] GET /user (full list) × ${REQUESTS}...`);
    const full = await measureList(server.baseURL, cookies, "/user", (b) => {
      if (!Array.isArray(b)) throw new Error("GET /user without paging did not return an array");
      return b.length;
    });
    if (full.items < USERS) throw new Error(`GET /user listed ${full.items}, expected at least ${USERS}`);
    rows.push(apiRow("GET /api/v1/user (full list, target p99 < 150 ms)", full));

    // The same after a change before every request (another process's write, straight in the
    // database): the cached body is stale each time and PostgreSQL builds it again.
    ctx.log(`[users] GET /user (full list) after a change × ${REQUESTS}...`);
    let n = 0;
    const touch = () => client.query("update users set phone = $1 where username = 'user1'", [`+4812345${String(n++).padStart(4, "0")}`]);
    const rebuilt = await measureList(server.baseURL, cookies, "/user", (b) => (b as unknown[]).length, touch);
    rows.push(apiRow("GET /api/v1/user (full list), a user changed before each request", rebuilt));

    ctx.log(`[users] GET /user?search=user99 (full list) × ${REQUESTS}...`);
    const fullSearch = await measureList(server.baseURL, cookies, "/user?search=user99", (b) => (b as unknown[]).length);
    if (fullSearch.items === 0) throw new Error("search for user99 found nothing");
    rows.push(apiRow("GET /api/v1/user?search=user99 (full list with a search term)", fullSearch));

    ctx.log(`[users] GET /user?page=1&page_size=50 × ${REQUESTS}...`);
    const paged = await measureList(server.baseURL, cookies, "/user?page=1&page_size=50", pageItems);
    if (paged.items !== 50) throw new Error(`page of 50 returned ${paged.items} users`);
    rows.push(apiRow("GET /api/v1/user?page=1&page_size=50", paged));

    ctx.log(`[users] GET /user?search=user99&page=1&page_size=50 × ${REQUESTS}...`);
    const searched = await measureList(server.baseURL, cookies, "/user?search=user99&page=1&page_size=50", pageItems);
    if (searched.items === 0) throw new Error("search for user99 found nothing");
    rows.push(apiRow("GET /api/v1/user?search=user99&page=1&page_size=50", searched));

    ctx.log(`[users] /users page in Chromium × ${PAGE_LOADS}...`);
    const browser = await chromium.launch({
      executablePath: "/usr/bin/chromium",
      args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
    });
    try {
      const context = await browser.newContext({ baseURL: server.baseURL });
      // The context's request client shares the browser's cookie jar: signing in here signs in the pages.
      const auth = await context.request.post("/api/v1/auth", { data: { username: "admin", password: adminPassword } });
      if (auth.status() !== 200) throw new Error(`browser sign-in returned ${auth.status()}: ${(await auth.text()).slice(0, 200)}`);
      const page = await context.newPage();
      const firstRow = page.locator('[data-testid="user-row"]').first();
      // Warm-up: the first load also compiles/loads the route and its chunks.
      await page.goto(`${server.baseURL}/users`);
      await firstRow.waitFor({ timeout: 60_000 });
      const times: number[] = [];
      for (let i = 0; i < PAGE_LOADS; i++) {
        await page.goto("about:blank");
        const t0 = Date.now();
        await page.goto(`${server.baseURL}/users`);
        await firstRow.waitFor({ timeout: 60_000 });
        times.push(Date.now() - t0);
      }
      if (new URL(page.url()).pathname !== "/users") throw new Error(`ended on ${page.url()} instead of /users`);
      const shown = await page.locator('[data-testid="user-row"]').count();
      rows.push({
        measurement: `/users in Chromium: navigation → first row (target < 1.5 s; ${shown} rows rendered)`,
        items: USERS,
        requests: times.length,
        "p50 ms": ms(median(times)),
        "p99 ms": dash,
        "max ms": ms(max(times)),
        "payload KiB": dash,
      });
      await context.close();
    } finally {
      await browser.close();
    }
    return rows;
    } finally {
      await client.end();
    }
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

const suite: Suite = {
  name: "users",
  description: `${USERS} users in ${GROUPS} groups: GET /api/v1/user (full, paged, search) and the /users page in Chromium (p50 column = median for the page)`,
  run,
};
export default suite;
