/**
 * What the global setup hands to the tests and the teardown: a JSON file in the run's temp
 * directory, found through DEFGUARD_E2E_STATE (the setup sets the variable before Playwright
 * starts the workers, which inherit it). DEFGUARD_E2E_BASE_URL is set as well, for the config.
 */
import { readFileSync, writeFileSync } from "node:fs";

export const STATE_ENV = "DEFGUARD_E2E_STATE";
export const BASE_URL_ENV = "DEFGUARD_E2E_BASE_URL";

export interface E2eState {
  baseURL: string;
  adminPassword: string;
  /** Temp directory of this run: data dir, server log, this file. */
  tempDir: string;
  dataDir: string;
  logFile: string;
  serverPid: number;
  dbPort: number | null;
  /** gRPC port for gateways of this run's console. */
  grpcPort: number;
}

export function writeState(file: string, state: E2eState): void {
  writeFileSync(file, JSON.stringify(state, null, 2), { mode: 0o600 });
}

export function readState(): E2eState {
  const file = process.env[STATE_ENV];
  if (!file) throw new Error(`${STATE_ENV} is not set: run the suite through playwright.config.ts (npx playwright test)`);
  return JSON.parse(readFileSync(file, "utf8")) as E2eState;
}
