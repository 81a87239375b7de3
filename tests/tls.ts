import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface TestPki {
  dir: string;
  /** PEM files: a private CA, and a server certificate it signed for localhost / 127.0.0.1. */
  caCert: string;
  serverCert: string;
  serverKey: string;
  /** A CA that signed nothing here (to show an untrusted server is refused). */
  otherCaCert: string;
  cleanup(): void;
}

/** A throw-away PKI made with openssl (EC P-256, one day). */
export function makeTestPki(): TestPki {
  const dir = mkdtempSync(join(tmpdir(), "dg-pki-"));
  const p = (f: string) => join(dir, f);
  const ssl = (...args: string[]) => execFileSync("openssl", args, { cwd: dir, stdio: ["ignore", "ignore", "pipe"] });
  const ca = (name: string) => {
    ssl("ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", p(`${name}.key`));
    ssl("req", "-x509", "-new", "-key", p(`${name}.key`), "-sha256", "-days", "1", "-subj", `/CN=${name}`, "-out", p(`${name}.pem`));
  };
  ca("test-ca");
  ca("other-ca");
  ssl("ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", p("server.key"));
  ssl("req", "-new", "-key", p("server.key"), "-subj", "/CN=localhost", "-out", p("server.csr"));
  execFileSync("sh", ["-c", `printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\\nextendedKeyUsage=serverAuth\\n' > ${p("ext.cnf")}`]);
  ssl("x509", "-req", "-in", p("server.csr"), "-CA", p("test-ca.pem"), "-CAkey", p("test-ca.key"), "-CAcreateserial", "-days", "1", "-sha256", "-extfile", p("ext.cnf"), "-out", p("server.pem"));
  return {
    dir,
    caCert: p("test-ca.pem"),
    serverCert: p("server.pem"),
    serverKey: p("server.key"),
    otherCaCert: p("other-ca.pem"),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}
