import { describe, expect, it } from "vitest";
import { backoffDelay, statsToSend } from "./client";
import { ConfigError, loadConfig, parseGrpcUrl } from "./config";
import { parseDump } from "./wg";

const base = { DEFGUARD_TOKEN: "tok", DEFGUARD_GRPC_URL: "http://192.0.2.1:50055" };

describe("loadConfig", () => {
  it("defaults like defguard's gateway", () => {
    const c = loadConfig({ ...base, DEFGUARD_HOSTNAME: "edge" });
    expect(c).toMatchObject({
      token: "tok",
      grpcTarget: "192.0.2.1:50055",
      tls: false,
      ifname: "wg0",
      userspace: false,
      statsPeriod: 30,
      healthPort: null,
      name: null,
      hostname: "edge",
      preUp: null,
      firewall: true,
      teardownOnExit: false,
    });
  });

  it("reads every variable", () => {
    const c = loadConfig({
      ...base,
      DEFGUARD_IFNAME: "wg-dgt",
      DEFGUARD_USERSPACE: "true",
      DEFGUARD_STATS_PERIOD: "2",
      DEFGUARD_PRE_UP: "echo pre",
      DEFGUARD_POST_UP: "echo post",
      DEFGUARD_PRE_DOWN: "echo pd",
      DEFGUARD_POST_DOWN: "echo pod",
      HEALTH_PORT: "55003",
      DEFGUARD_GATEWAY_NAME: " edge-1 ",
      DEFGUARD_TEARDOWN_ON_EXIT: "1",
    });
    expect(c).toMatchObject({ teardownOnExit: true, ifname: "wg-dgt", userspace: true, statsPeriod: 2, preUp: "echo pre", postDown: "echo pod", healthPort: 55003, name: "edge-1" });
  });

  it("lists every problem at once", () => {
    try {
      loadConfig({ DEFGUARD_IFNAME: "this-name-is-far-too-long", DEFGUARD_USERSPACE: "maybe", DEFGUARD_STATS_PERIOD: "0", HEALTH_PORT: "x" });
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(ConfigError);
      expect((e as ConfigError).problems).toHaveLength(6);
    }
  });

  it("DEFGUARD_GRPC_CA: a readable PEM file, only with https://", () => {
    const pem = Buffer.from("-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n");
    const files: Record<string, Buffer> = { "/etc/ca.pem": pem, "/etc/junk": Buffer.from("hello") };
    const read = (p: string) => {
      if (!files[p]) throw new Error(`ENOENT: ${p}`);
      return files[p];
    };
    const https = { ...base, DEFGUARD_GRPC_URL: "https://vpn.example.com:50055" };
    expect(loadConfig({ ...https, DEFGUARD_GRPC_CA: "/etc/ca.pem" }, read)).toMatchObject({ tls: true, ca: pem });
    expect(loadConfig(https, read).ca).toBeNull();
    const problems = (env: Record<string, string>) => {
      try {
        loadConfig(env, read);
        return [];
      } catch (e) {
        return (e as ConfigError).problems;
      }
    };
    expect(problems({ ...base, DEFGUARD_GRPC_CA: "/etc/ca.pem" })).toEqual(["DEFGUARD_GRPC_CA needs an https:// DEFGUARD_GRPC_URL"]);
    expect(problems({ ...https, DEFGUARD_GRPC_CA: "/etc/missing.pem" })[0]).toMatch(/^DEFGUARD_GRPC_CA cannot be read: ENOENT/);
    expect(problems({ ...https, DEFGUARD_GRPC_CA: "/etc/junk" })).toEqual(["DEFGUARD_GRPC_CA is not a PEM certificate file: /etc/junk"]);
  });

  it("parses gRPC URLs", () => {
    expect(parseGrpcUrl("https://vpn.example.com")).toEqual({ target: "vpn.example.com:443", tls: true });
    expect(parseGrpcUrl("192.0.2.1:50066")).toEqual({ target: "192.0.2.1:50066", tls: false });
    expect(parseGrpcUrl("http://[2001:db8::1]:50055")).toEqual({ target: "[2001:db8::1]:50055", tls: false });
    expect(() => parseGrpcUrl("ftp://x")).toThrow();
  });
});

describe("backoffDelay", () => {
  it("doubles from the minimum to the maximum, with ±20 % jitter", () => {
    const mid = () => 0.5;
    expect([0, 1, 2, 3, 4, 5, 6, 20].map((a) => backoffDelay(a, 1000, 30_000, mid))).toEqual([1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000]);
    expect(backoffDelay(0, 1000, 30_000, () => 0)).toBe(800);
    expect(backoffDelay(2, 1000, 30_000, () => 1)).toBe(4800);
    expect(backoffDelay(10, 1000, 30_000, () => 1)).toBe(30_000);
  });
});

describe("statsToSend", () => {
  const K1 = "mRToDaBkIQ0WuiTwZv6TGo73q0Vpxee8HUUYN7T3PFw=";
  const K2 = "72G0mwT2JUsx+wj6zlvVGpEU+a/HfBliNOh1BKyCmGo=";
  const dump = (rx: number, tx: number) =>
    parseDump(
      [
        "(none)\t(none)\t51820\toff",
        `${K1}\t(none)\t198.51.100.2:40000\t203.0.113.2/32\t1700000000\t${rx}\t${tx}\t25`,
        `${K2}\t(none)\t(none)\t203.0.113.3/32\t0\t0\t0\t25`,
      ].join("\n"),
    );

  it("sends peers with a handshake whose counters moved; upload = tx, download = rx (defguard's direction)", () => {
    const last = new Map<string, string>();
    expect(statsToSend(dump(100, 200), last)).toEqual([
      { public_key: K1, endpoint: "198.51.100.2:40000", upload: 200, download: 100, keepalive_interval: 25, latest_handshake: 1700000000, allowed_ips: "203.0.113.2/32" },
    ]);
    expect(statsToSend(dump(100, 200), last)).toEqual([]);
    expect(statsToSend(dump(150, 200), last)).toHaveLength(1);
  });
});
