/**
 * Playwright global teardown: SIGTERM the server started by the global setup (by PID, then
 * SIGKILL of its process tree if it does not exit), and remove the run's temp directory.
 * DEFGUARD_E2E_KEEP=1 keeps the directory (server log, data) for a look after a failure.
 */
import { existsSync, rmSync } from "node:fs";
import { stopByPid } from "./server";
import { readState, STATE_ENV } from "./state";

export default async function globalTeardown(): Promise<void> {
  if (!process.env[STATE_ENV] || !existsSync(process.env[STATE_ENV]!)) return;
  const state = readState();
  const result = await stopByPid(state.serverPid);
  if (result === "killed") console.warn(`[e2e] the server (pid ${state.serverPid}) ignored SIGTERM and was killed`);
  if (process.env.DEFGUARD_E2E_KEEP === "1") {
    console.log(`[e2e] kept ${state.tempDir} (server log: ${state.logFile})`);
    return;
  }
  for (let i = 0; i < 5; i++) {
    try {
      rmSync(state.tempDir, { recursive: true, force: true });
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  console.warn(`[e2e] could not remove ${state.tempDir}`);
}
