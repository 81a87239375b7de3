import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { startIdleGc } from "./idle-gc";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
let server: Server | null = null;
afterEach(() => new Promise<void>((r) => (server ? server.close(() => r()) : r())));

async function listen(): Promise<string> {
  server = createServer((_req, res) => res.end("ok"));
  await new Promise<void>((r) => server!.listen(0, "127.0.0.1", r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe("idle collection", () => {
  it("runs once after requests stop, not while idle without requests, again after new requests", async () => {
    const url = await listen();
    let runs = 0;
    const stop = startIdleGc(server!, 150, () => runs++);
    await sleep(400);
    expect(runs, "no request yet: nothing to give back").toBe(0);
    await fetch(url);
    await fetch(url);
    await sleep(60);
    expect(runs, "not before the idle period").toBe(0);
    await sleep(400);
    expect(runs).toBe(1);
    await sleep(300);
    expect(runs, "once per idle period").toBe(1);
    await fetch(url);
    await sleep(450);
    expect(runs).toBe(2);
    stop();
  });

  it("is off with 0 seconds", async () => {
    const url = await listen();
    let runs = 0;
    startIdleGc(server!, 0, () => runs++);
    await fetch(url);
    await sleep(300);
    expect(runs).toBe(0);
  });
});
