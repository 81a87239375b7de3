/** A second console process for tests/oidc.test.ts: same DATABASE_URL, secrets and DEFGUARD_URL. */
import { startOidcServer } from "./oidc-server";

const s = await startOidcServer();
console.log(JSON.stringify({ url: s.url, pid: process.pid }));
process.on("SIGTERM", () => void s.close().then(() => process.exit(0)));
