/**
 * wg-quick configuration files: rendering the client config a device downloads, and
 * parsing an existing file (location import). Pure functions, no I/O.
 */
import { parseCidrOrIp, parseIp } from "../net/ip";
import { isValidKey } from "./keys";

export interface WgInterface {
  /** null when the file has no PrivateKey or the YOUR_PRIVATE_KEY placeholder */
  privateKey: string | null;
  /** validated, kept as written (bare IPs allowed, as wg-quick allows them) */
  addresses: string[];
  listenPort?: number;
  /** IPs or search domains, as written */
  dns: string[];
  mtu?: number;
}

export interface WgPeer {
  publicKey: string;
  presharedKey?: string;
  /** validated, kept as written */
  allowedIps: string[];
  /** "host:port" or "[v6]:port", as written */
  endpoint?: string;
  /** absent when off / 0 */
  persistentKeepalive?: number;
}

export interface WgConfig {
  interface: WgInterface;
  peers: WgPeer[];
}

export const PRIVATE_KEY_PLACEHOLDER = "YOUR_PRIVATE_KEY";

export class WgConfigError extends Error {
  constructor(
    message: string,
    readonly line?: number,
  ) {
    super(message);
    this.name = "WgConfigError";
  }
}

/** "host:port"; IPv6 literals go in brackets: "[2001:db8::1]:51820". */
/** The host of an "ip:port" or "[v6]:port" endpoint as a gateway reports it. */
export function endpointHost(endpoint: string): string {
  return endpoint.replace(/:\d+$/, "").replace(/^\[|\]$/g, "");
}

export function formatEndpoint(host: string, port: number): string {
  const h = host.trim();
  return parseIp(h)?.version === 6 ? `[${h}]:${port}` : `${h}:${port}`;
}

/** Comma list → trimmed non-empty entries. */
function splitList(value: string): string[] {
  return value
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
}

/** The client config a device downloads (wg-quick format). */
export function renderClientConfig(p: {
  privateKey: string | null /* null → PRIVATE_KEY_PLACEHOLDER */;
  addresses: string[] /* device IPs, rendered as given */;
  dns?: string | null;
  peer: {
    publicKey: string;
    presharedKey?: string | null;
    allowedIps: string[];
    endpoint: string /* host or IP */;
    port: number;
    keepalive?: number | null;
  };
}): string {
  const { peer } = p;
  const dns = splitList(p.dns ?? "");
  const lines = ["[Interface]", `PrivateKey = ${p.privateKey ?? PRIVATE_KEY_PLACEHOLDER}`];
  if (p.addresses.length > 0) lines.push(`Address = ${p.addresses.join(", ")}`);
  if (dns.length > 0) lines.push(`DNS = ${dns.join(", ")}`);
  lines.push("", "[Peer]", `PublicKey = ${peer.publicKey}`);
  if (peer.presharedKey) lines.push(`PresharedKey = ${peer.presharedKey}`);
  if (peer.allowedIps.length > 0) lines.push(`AllowedIPs = ${peer.allowedIps.join(", ")}`);
  lines.push(`Endpoint = ${formatEndpoint(peer.endpoint, peer.port)}`);
  if (peer.keepalive != null && peer.keepalive > 0) lines.push(`PersistentKeepalive = ${peer.keepalive}`);
  return `${lines.join("\n")}\n`;
}

// ---------------------------------------------------------------------------------------
// Parsing

const MAX_BYTES = 512 * 1024;
/** C0 controls except tab (newlines are split off before), DEL and C1 controls. */
const CONTROL_CHARS = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f]/;
const KEY_NAME = /^[A-Za-z][A-Za-z0-9_]*$/;
/** DNS host name: dot-separated labels of letters, digits, "-" and "_" (trailing dot allowed). */
const HOST_NAME = /^(?=.{1,253}\.?$)[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?(?:\.[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?)*\.?$/;

/** A host name that is not a malformed dotted quad such as "010.0.0.1" or "1.2.3". */
function isHostName(s: string): boolean {
  return HOST_NAME.test(s) && !/^[\d.]+$/.test(s);
}

function isValidEndpoint(value: string): boolean {
  const m = /^\[([^\]]+)\]:(\d{1,5})$/.exec(value) ?? /^([^:[\]]+):(\d{1,5})$/.exec(value);
  if (!m) return false;
  const port = Number(m[2]);
  if (port < 1 || port > 65535) return false;
  const host = m[1];
  const ip = parseIp(host);
  if (value.startsWith("[")) return ip?.version === 6;
  return ip?.version === 4 || isHostName(host);
}

/** Parse a wg-quick file. Errors carry a 1-based line number: throws WgConfigError. Accepts comments (#), blank lines, case-insensitive keys, CRLF, repeated Address/DNS/AllowedIPs lines; rejects unknown sections, keys outside a section, missing [Interface], bad keys (isValidKey), bad addresses, non-numeric ports, binary garbage (NUL or other control chars), files over 512 KiB. Unknown keys inside known sections (PostUp, Table, SaveConfig, FwMark...) are ignored. */
export function parseConfig(text: string): WgConfig {
  if (typeof text !== "string") throw new WgConfigError("configuration must be text");
  if (text.length > MAX_BYTES || Buffer.byteLength(text, "utf8") > MAX_BYTES) {
    throw new WgConfigError("configuration file is larger than 512 KiB");
  }
  if (text.startsWith("\ufeff")) text = text.slice(1); // UTF-8 byte order mark

  let iface: WgInterface | null = null;
  const peers: WgPeer[] = [];
  const peerKeys = new Set<string>();
  let section: "interface" | "peer" | null = null;
  let peer: { value: Partial<WgPeer> & { allowedIps: string[] }; line: number } | null = null;

  const fail = (line: number, message: string): never => {
    throw new WgConfigError(`line ${line}: ${message}`, line);
  };
  const closePeer = () => {
    if (!peer) return;
    const { value, line } = peer;
    if (value.publicKey === undefined) fail(line, "[Peer] section without PublicKey");
    peers.push(value as WgPeer);
    peer = null;
  };
  const number = (line: number, key: string, value: string, min: number, max: number): number => {
    const n = /^\d{1,6}$/.test(value) ? Number(value) : NaN;
    if (!(n >= min && n <= max)) fail(line, `${key} must be a number from ${min} to ${max}: ${value}`);
    return n;
  };
  const key32 = (line: number, key: string, value: string): string => {
    if (!isValidKey(value)) fail(line, `invalid ${key} (expected 44 characters of base64)`);
    return value;
  };
  const cidrs = (line: number, key: string, value: string): string[] => {
    const list = splitList(value);
    for (const entry of list) if (!parseCidrOrIp(entry)) fail(line, `invalid address in ${key}: ${entry}`);
    return list;
  };

  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const n = i + 1;
    let raw = lines[i];
    if (raw.endsWith("\r")) raw = raw.slice(0, -1);
    if (CONTROL_CHARS.test(raw)) fail(n, "binary data or control characters");
    const hash = raw.indexOf("#");
    const line = (hash >= 0 ? raw.slice(0, hash) : raw).trim();
    if (line === "") continue;

    if (line.startsWith("[")) {
      const name = /^\[\s*([A-Za-z]+)\s*\]$/.exec(line)?.[1].toLowerCase();
      closePeer();
      if (name === "interface") {
        if (iface) fail(n, "duplicate [Interface] section");
        iface = { privateKey: null, addresses: [], dns: [] };
        section = "interface";
      } else if (name === "peer") {
        peer = { value: { allowedIps: [] }, line: n };
        section = "peer";
      } else {
        fail(n, `unknown section ${line}`);
      }
      continue;
    }

    const eq = line.indexOf("=");
    if (eq < 0) fail(n, `expected "Key = Value": ${line}`);
    const key = line.slice(0, eq).trim();
    const value = line.slice(eq + 1).trim();
    if (!KEY_NAME.test(key)) fail(n, `invalid key: ${key}`);
    const k = key.toLowerCase();

    if (section === "interface" && iface) {
      if (k === "privatekey") {
        iface.privateKey = value === PRIVATE_KEY_PLACEHOLDER ? null : key32(n, "PrivateKey", value);
      } else if (k === "address") {
        iface.addresses.push(...cidrs(n, "Address", value));
      } else if (k === "dns") {
        for (const entry of splitList(value)) {
          if (!parseIp(entry) && !isHostName(entry)) fail(n, `invalid DNS server or search domain: ${entry}`);
          iface.dns.push(entry);
        }
      } else if (k === "listenport") {
        iface.listenPort = number(n, "ListenPort", value, 0, 65535);
      } else if (k === "mtu") {
        iface.mtu = number(n, "MTU", value, 68, 65535);
      } // other keys (PostUp, Table, SaveConfig, FwMark, ...) do not matter here
    } else if (section === "peer" && peer) {
      const p: Partial<WgPeer> & { allowedIps: string[] } = peer.value;
      if (k === "publickey") {
        p.publicKey = key32(n, "PublicKey", value);
        if (peerKeys.has(p.publicKey)) fail(n, `duplicate peer ${p.publicKey}`);
        peerKeys.add(p.publicKey);
      } else if (k === "presharedkey") {
        p.presharedKey = key32(n, "PresharedKey", value);
      } else if (k === "allowedips") {
        p.allowedIps.push(...cidrs(n, "AllowedIPs", value));
      } else if (k === "endpoint") {
        if (!isValidEndpoint(value)) fail(n, `invalid Endpoint (expected host:port or [IPv6]:port): ${value}`);
        p.endpoint = value;
      } else if (k === "persistentkeepalive") {
        const secs = value.toLowerCase() === "off" ? 0 : number(n, "PersistentKeepalive", value, 0, 65535);
        if (secs > 0) p.persistentKeepalive = secs;
        else delete p.persistentKeepalive;
      }
    } else {
      fail(n, `${key} outside of a section`);
    }
  }
  closePeer();
  if (!iface) throw new WgConfigError("missing [Interface] section");
  return { interface: iface, peers };
}
