import { execFileSync, spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  formatEndpoint,
  parseConfig,
  PRIVATE_KEY_PLACEHOLDER,
  renderClientConfig,
  WgConfigError,
  type WgConfig,
} from "./config";
import { formatIp } from "../net/ip";
import { generateKeyPair, generatePresharedKey } from "./keys";

const KEY_A = "yAnz5TF+lXXJte14tji3zlMNq+hd2rYUIgJBgB3fBmk=";
const KEY_B = "xTIBA5rboUvnH4htodjb6e697QjLERt1NAB4mZqp8Dg=";
const KEY_C = "HIgo9xNzJMWLKASShiTqIybxZ0U3wGLiUeJ1PKf8ykw=";

/** Run parseConfig and return the WgConfigError it throws (fails the test otherwise). */
function parseError(text: string): WgConfigError {
  try {
    parseConfig(text);
  } catch (e) {
    expect(e).toBeInstanceOf(WgConfigError);
    return e as WgConfigError;
  }
  throw new Error(`expected a WgConfigError for:\n${text}`);
}

describe("formatEndpoint", () => {
  it("brackets IPv6 literals only", () => {
    expect(formatEndpoint("vpn.example.com", 51820)).toBe("vpn.example.com:51820");
    expect(formatEndpoint("203.0.113.5", 1)).toBe("203.0.113.5:1");
    expect(formatEndpoint("2001:db8::1", 51820)).toBe("[2001:db8::1]:51820");
    expect(formatEndpoint("[2001:db8::1]", 51820)).toBe("[2001:db8::1]:51820");
    expect(formatEndpoint(" vpn.example.com ", 443)).toBe("vpn.example.com:443");
  });
});

describe("renderClientConfig", () => {
  it("renders the full format exactly", () => {
    const text = renderClientConfig({
      privateKey: KEY_A,
      addresses: ["10.1.0.2", "fd00::2"],
      dns: "10.1.0.1",
      peer: {
        publicKey: KEY_B,
        presharedKey: KEY_C,
        allowedIps: ["0.0.0.0/0", "::/0"],
        endpoint: "vpn.example.com",
        port: 51820,
        keepalive: 25,
      },
    });
    expect(text).toBe(
      [
        "[Interface]",
        `PrivateKey = ${KEY_A}`,
        "Address = 10.1.0.2, fd00::2",
        "DNS = 10.1.0.1",
        "",
        "[Peer]",
        `PublicKey = ${KEY_B}`,
        `PresharedKey = ${KEY_C}`,
        "AllowedIPs = 0.0.0.0/0, ::/0",
        "Endpoint = vpn.example.com:51820",
        "PersistentKeepalive = 25",
        "",
      ].join("\n"),
    );
  });

  it("leaves out what is not given and uses the placeholder for an unknown private key", () => {
    const text = renderClientConfig({
      privateKey: null,
      addresses: ["10.1.0.2"],
      dns: "  ",
      peer: { publicKey: KEY_B, presharedKey: null, allowedIps: ["10.1.0.0/24"], endpoint: "2001:db8::1", port: 51820, keepalive: 0 },
    });
    expect(text).toBe(
      [
        "[Interface]",
        `PrivateKey = ${PRIVATE_KEY_PLACEHOLDER}`,
        "Address = 10.1.0.2",
        "",
        "[Peer]",
        `PublicKey = ${KEY_B}`,
        "AllowedIPs = 10.1.0.0/24",
        "Endpoint = [2001:db8::1]:51820",
        "",
      ].join("\n"),
    );
    expect(renderClientConfig({ privateKey: null, addresses: ["10.1.0.2"], peer: { publicKey: KEY_B, allowedIps: [], endpoint: "h", port: 1 } })).not.toMatch(
      /DNS|PresharedKey|PersistentKeepalive|AllowedIPs/,
    );
    expect(parseConfig(text).interface.privateKey).toBeNull();
  });

  it("normalises a DNS list", () => {
    const text = renderClientConfig({
      privateKey: KEY_A,
      addresses: ["10.1.0.2"],
      dns: "10.1.0.1,1.1.1.1 ,, corp.example",
      peer: { publicKey: KEY_B, allowedIps: ["0.0.0.0/0"], endpoint: "h", port: 1 },
    });
    expect(text).toContain("\nDNS = 10.1.0.1, 1.1.1.1, corp.example\n");
  });
});

// Arbitraries for render → parse round trips -------------------------------------------------
const key = fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => Buffer.from(b).toString("base64"));
const v4 = fc.bigInt({ min: 0n, max: (1n << 32n) - 1n }).map((v) => formatIp(v, 4));
const v6 = fc.bigInt({ min: 0n, max: (1n << 128n) - 1n }).map((v) => formatIp(v, 6));
const withPrefix = (ip: fc.Arbitrary<string>, max: number) =>
  fc.tuple(ip, fc.option(fc.integer({ min: 0, max }), { nil: undefined })).map(([a, p]) => (p === undefined ? a : `${a}/${p}`));
const addr = fc.oneof(withPrefix(v4, 32), withPrefix(v6, 128));
const dnsEntry = fc.oneof(v4, v6, fc.domain());
const clientParams = fc.record({
  privateKey: fc.option(key, { nil: null }),
  addresses: fc.array(addr, { maxLength: 4 }),
  dns: fc.option(fc.array(dnsEntry, { maxLength: 4 }), { nil: null }),
  peer: fc.record({
    publicKey: key,
    presharedKey: fc.option(key, { nil: null }),
    allowedIps: fc.array(addr, { maxLength: 5 }),
    endpoint: fc.oneof(fc.domain(), v4, v6),
    port: fc.integer({ min: 1, max: 65535 }),
    keepalive: fc.option(fc.integer({ min: 0, max: 65535 }), { nil: null }),
  }),
});

describe("render → parse round trip", () => {
  it("preserves keys, addresses, allowed IPs, endpoint, keepalive and DNS", () => {
    fc.assert(
      fc.property(clientParams, (p) => {
        const parsed = parseConfig(renderClientConfig({ ...p, dns: p.dns?.join(",") ?? null }));
        const expected: WgConfig = {
          interface: { privateKey: p.privateKey, addresses: p.addresses, dns: p.dns ?? [] },
          peers: [
            {
              publicKey: p.peer.publicKey,
              ...(p.peer.presharedKey ? { presharedKey: p.peer.presharedKey } : {}),
              allowedIps: p.peer.allowedIps,
              endpoint: formatEndpoint(p.peer.endpoint, p.peer.port),
              ...(p.peer.keepalive ? { persistentKeepalive: p.peer.keepalive } : {}),
            },
          ],
        };
        expect(parsed).toEqual(expected);
      }),
      { numRuns: 1000 },
    );
  });
});

describe("parseConfig", () => {
  it("parses a typical server file with comments, CRLF, odd case and ignored keys", () => {
    const text = [
      "# defguard location export",
      "[Interface]   # the server",
      `privatekey=${KEY_A}`,
      "Address = 10.1.0.1/24",
      "address = fd00::1/64 , 10.2.0.1/16",
      "ListenPort = 51820",
      "MTU = 1420",
      "DNS = 1.1.1.1, corp.example",
      "dns = 2606:4700:4700::1111",
      "PostUp = iptables -A FORWARD -i %i -j ACCEPT; iptables -t nat -A POSTROUTING -o eth0 -j MASQUERADE",
      "Table = off",
      "SaveConfig = true",
      "FwMark = 0x1234",
      "",
      "\t[PEER]",
      `PublicKey = ${KEY_B}`,
      `PresharedKey = ${KEY_C}`,
      "AllowedIPs = 10.1.0.2/32",
      "AllowedIPs = fd00::2/128, 10.1.0.3",
      "Endpoint = [2001:db8::1]:51820",
      "PersistentKeepalive = off",
      "[ Peer ]",
      `PublicKey = ${KEY_C}`,
      "AllowedIPs =",
      "Endpoint = peer.example.com:4500",
      "PersistentKeepalive = 25",
      "",
    ].join("\r\n");
    expect(parseConfig(`\ufeff${text}`)).toEqual({
      interface: {
        privateKey: KEY_A,
        addresses: ["10.1.0.1/24", "fd00::1/64", "10.2.0.1/16"],
        listenPort: 51820,
        mtu: 1420,
        dns: ["1.1.1.1", "corp.example", "2606:4700:4700::1111"],
      },
      peers: [
        { publicKey: KEY_B, presharedKey: KEY_C, allowedIps: ["10.1.0.2/32", "fd00::2/128", "10.1.0.3"], endpoint: "[2001:db8::1]:51820" },
        { publicKey: KEY_C, allowedIps: [], endpoint: "peer.example.com:4500", persistentKeepalive: 25 },
      ],
    });
  });

  it("accepts an interface without private key or peers", () => {
    expect(parseConfig("[Interface]\n")).toEqual({ interface: { privateKey: null, addresses: [], dns: [] }, peers: [] });
    expect(parseConfig(`[Interface]\nPrivateKey = ${PRIVATE_KEY_PLACEHOLDER}\nListenPort = 0`).interface).toEqual({
      privateKey: null,
      addresses: [],
      dns: [],
      listenPort: 0,
    });
  });

  const I = "[Interface]";
  const P = `[Peer]\nPublicKey = ${KEY_B}`;
  it.each([
    [`${I}\n[Wat]`, 2, /unknown section/],
    [`${I}\n[Interface`, 2, /unknown section/],
    [`PrivateKey = ${KEY_A}\n${I}`, 1, /outside of a section/],
    [`\n\n${I}\nPrivateKey = nope`, 4, /invalid PrivateKey/],
    [`${I}\nPrivateKey = ${KEY_A.slice(0, 43)}`, 2, /invalid PrivateKey/],
    [`${I}\n${P}x`, 3, /invalid PublicKey/],
    [`${I}\n${P}\nPresharedKey = ${KEY_C}${KEY_C}`, 4, /invalid PresharedKey/],
    [`${I}\nAddress = 10.1.0.1/24, 10.1.0.300/24`, 2, /invalid address in Address: 10\.1\.0\.300\/24/],
    [`${I}\nAddress = 10.1.0.1/33`, 2, /invalid address/],
    [`${I}\n${P}\nAllowedIPs = 0.0.0.0/0, ::/0, nope`, 4, /invalid address in AllowedIPs: nope/],
    [`${I}\nListenPort = abc`, 2, /ListenPort must be a number/],
    [`${I}\nListenPort = 65536`, 2, /ListenPort/],
    [`${I}\nListenPort = -1`, 2, /ListenPort/],
    [`${I}\nListenPort = 5e3`, 2, /ListenPort/],
    [`${I}\nMTU = 12`, 2, /MTU/],
    [`${I}\n${P}\nEndpoint = vpn.example.com:abc`, 4, /invalid Endpoint/],
    [`${I}\n${P}\nEndpoint = vpn.example.com`, 4, /invalid Endpoint/],
    [`${I}\n${P}\nEndpoint = 2001:db8::1:51820`, 4, /invalid Endpoint/],
    [`${I}\n${P}\nEndpoint = [vpn.example.com]:51820`, 4, /invalid Endpoint/],
    [`${I}\n${P}\nEndpoint = vpn.example.com:0`, 4, /invalid Endpoint/],
    [`${I}\n${P}\nEndpoint = bad host:1`, 4, /invalid Endpoint/],
    [`${I}\n${P}\nPersistentKeepalive = often`, 4, /PersistentKeepalive/],
    [`${I}\nDNS = 1.1.1.1, not a domain`, 2, /invalid DNS/],
    [`${I}\nDNS = 010.0.0.1`, 2, /invalid DNS/],
    [`${I}\n[Peer]\nAllowedIPs = 10.0.0.0/8\n[Peer]\nPublicKey = ${KEY_C}`, 2, /\[Peer\] section without PublicKey/],
    [`${I}\n${P}\n${P}`, 5, /duplicate peer/],
    [`${I}\n${I}`, 2, /duplicate \[Interface\]/],
    [`${I}\nthis is not a setting`, 2, /expected "Key = Value"/],
    [`${I}\n= value`, 2, /invalid key/],
    [`${I}\nPost Up = x`, 2, /invalid key/],
    [`${I}\nAddress = 10.1.0.1/24\u0000`, 2, /binary/],
    [`${I}\r\nAddress = 10.1.0.1/24\rDNS = 1.1.1.1`, 2, /control characters/],
    [`${I}\n\u001b[31mred`, 2, /control characters/],
    [`${I}\n# comment with NUL \u0000`, 2, /binary/],
  ])("rejects %j at line %i", (text, line, message) => {
    const e = parseError(text);
    expect(e.line).toBe(line);
    expect(e.message).toMatch(message);
    expect(e.message).toMatch(new RegExp(`^line ${line}: `));
  });

  it("rejects a file without [Interface]", () => {
    for (const text of ["", "# nothing\n\n", `${`[Peer]\nPublicKey = ${KEY_B}`}\n`]) {
      const e = parseError(text);
      expect(e.message).toMatch(/missing \[Interface\]/);
      expect(e.line).toBeUndefined();
    }
  });

  it("limits the size to 512 KiB (UTF-8 bytes)", () => {
    const head = "[Interface]\n";
    const exact = head + "#".repeat(512 * 1024 - head.length);
    expect(parseConfig(exact).peers).toEqual([]);
    expect(parseError(`${exact}#`).message).toMatch(/512 KiB/);
    expect(parseError(`${head}#${"é".repeat(300 * 1024)}`).message).toMatch(/512 KiB/); // 600 KiB of UTF-8
    expect(parseError("x".repeat(10 * 1024 * 1024)).line).toBeUndefined();
  });

  it("never throws anything but WgConfigError on arbitrary text", () => {
    const check = (text: string) => {
      try {
        parseConfig(text);
      } catch (e) {
        if (!(e instanceof WgConfigError)) throw e;
        if (e.line !== undefined) expect(e.line).toBeGreaterThanOrEqual(1);
      }
    };
    fc.assert(fc.property(fc.string({ unit: "binary", maxLength: 300 }), check), { numRuns: 2000 });
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 400 }), (bytes) => check(new TextDecoder().decode(bytes))),
      { numRuns: 2000 },
    );
    // line-structured noise: plausible lines, shuffled, so that parsing gets past the first line
    const line = fc.oneof(
      fc.constantFrom("[Interface]", "[Peer]", "[interface]", "[Nope]", "", "# c", "\r", `PublicKey = ${KEY_B}`, `PrivateKey = ${KEY_A}`),
      fc
        .tuple(
          fc.constantFrom("PrivateKey", "PublicKey", "PresharedKey", "Address", "DNS", "AllowedIPs", "Endpoint", "ListenPort", "MTU", "PersistentKeepalive", "PostUp", "x y"),
          fc.oneof(fc.string({ maxLength: 50 }), addr, key, fc.integer().map(String)),
        )
        .map(([k, v]) => `${k} = ${v}`),
    );
    fc.assert(
      fc.property(fc.array(line, { maxLength: 20 }), fc.constantFrom("\n", "\r\n"), (lines, eol) => check(lines.join(eol))),
      { numRuns: 3000 },
    );
  });

  it("survives random single-character corruption of a valid file", () => {
    const valid = renderClientConfig({
      privateKey: KEY_A,
      addresses: ["10.1.0.2/32", "fd00::2/128"],
      dns: "10.1.0.1, corp.example",
      peer: { publicKey: KEY_B, presharedKey: KEY_C, allowedIps: ["0.0.0.0/0", "::/0"], endpoint: "vpn.example.com", port: 51820, keepalive: 25 },
    });
    fc.assert(
      fc.property(fc.nat({ max: valid.length - 1 }), fc.string({ unit: "binary", minLength: 0, maxLength: 2 }), (at, ch) => {
        const text = valid.slice(0, at) + ch + valid.slice(at + 1);
        try {
          parseConfig(text);
        } catch (e) {
          expect(e).toBeInstanceOf(WgConfigError);
        }
      }),
      { numRuns: 3000 },
    );
  });
});

describe("wg-quick cross-check", () => {
  const WG_QUICK = "/usr/bin/wg-quick";
  // wg-quick re-executes itself through sudo when not root, even for `strip`.
  const reason = !existsSync(WG_QUICK)
    ? `${WG_QUICK} not found (install wireguard-tools)`
    : process.getuid?.() !== 0
      ? "wg-quick strip needs root (it would re-run itself with sudo)"
      : null;
  if (reason) console.log(`config.test: skipping the wg-quick strip check: ${reason}`);

  it.skipIf(reason !== null)("wg-quick strip accepts the rendered config", () => {
    const dir = mkdtempSync(join(tmpdir(), "wgtest-"));
    try {
      const server = generateKeyPair();
      const client = generateKeyPair();
      const text = renderClientConfig({
        privateKey: client.privateKey,
        addresses: ["10.1.0.2/32", "fd00::2/128"],
        dns: "10.1.0.1, corp.example",
        peer: {
          publicKey: server.publicKey,
          presharedKey: generatePresharedKey(),
          allowedIps: ["0.0.0.0/0", "::/0"],
          endpoint: "2001:db8::1",
          port: 51820,
          keepalive: 25,
        },
      });
      const file = join(dir, "wgtest0.conf"); // wg-quick wants "<interface name>.conf"
      writeFileSync(file, text);
      chmodSync(file, 0o600);
      const r = spawnSync(WG_QUICK, ["strip", file], { encoding: "utf8", timeout: 10_000 });
      expect(r.stderr).toBe("");
      expect(r.status).toBe(0);
      expect(r.stdout).toContain(`PrivateKey = ${client.privateKey}\n`);
      expect(r.stdout).toContain(`PublicKey = ${server.publicKey}\n`);
      expect(r.stdout).toContain("AllowedIPs = 0.0.0.0/0, ::/0\n");
      expect(r.stdout).toContain("Endpoint = [2001:db8::1]:51820\n");
      expect(r.stdout).not.toMatch(/^(Address|DNS)\b/m); // the wg-quick-only keys are stripped
      // what is left is a valid `wg setconf` file, and our parser reads it back
      expect(parseConfig(r.stdout).peers[0].publicKey).toBe(server.publicKey);
      // and `wg` agrees on the key pair
      expect(execFileSync("/usr/bin/wg", ["pubkey"], { input: client.privateKey, encoding: "utf8" }).trim()).toBe(client.publicKey);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
