/** The client address server.ts hands to the routes (x-defguard-client-ip). */
import { afterEach, describe, expect, it } from "vitest";
import { clientAddress } from "./client-ip";

afterEach(() => {
  delete process.env.DEFGUARD_TRUST_PROXY;
  delete process.env.DEFGUARD_TRUSTED_PROXY_HOPS;
});

describe("clientAddress", () => {
  it("without DEFGUARD_TRUST_PROXY ignores X-Forwarded-For and uses the connection's peer", () => {
    expect(clientAddress("203.0.113.9", "::ffff:198.51.100.4")).toBe("198.51.100.4");
  });

  it("behind one trusted proxy takes the right-most entry, not a forged left-most one", () => {
    process.env.DEFGUARD_TRUST_PROXY = "1";
    // The client sent "X-Forwarded-For: 192.0.2.66"; the proxy appended the real peer.
    expect(clientAddress("192.0.2.66, 203.0.113.9", "198.51.100.1")).toBe("203.0.113.9");
    expect(clientAddress("203.0.113.9", "198.51.100.1")).toBe("203.0.113.9");
  });

  it("with DEFGUARD_TRUSTED_PROXY_HOPS=2 takes the second entry from the right", () => {
    process.env.DEFGUARD_TRUST_PROXY = "1";
    process.env.DEFGUARD_TRUSTED_PROXY_HOPS = "2";
    expect(clientAddress("192.0.2.66, 203.0.113.9, 198.51.100.2", "198.51.100.1")).toBe("203.0.113.9");
    // Several headers are one list.
    expect(clientAddress(["192.0.2.66", "203.0.113.9, 198.51.100.2"], "198.51.100.1")).toBe("203.0.113.9");
    // Fewer entries than hops: the left-most is the best there is.
    expect(clientAddress("203.0.113.9", "198.51.100.1")).toBe("203.0.113.9");
  });

  it("falls back to the peer when the header is missing or empty; ignores a bad hop count", () => {
    process.env.DEFGUARD_TRUST_PROXY = "1";
    process.env.DEFGUARD_TRUSTED_PROXY_HOPS = "zero";
    expect(clientAddress(undefined, "198.51.100.1")).toBe("198.51.100.1");
    expect(clientAddress(" , ", "198.51.100.1")).toBe("198.51.100.1");
    expect(clientAddress("192.0.2.66, 2001:db8::5", "198.51.100.1")).toBe("2001:db8::5");
  });
});
