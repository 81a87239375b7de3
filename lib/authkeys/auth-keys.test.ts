/**
 * Authentication keys: SSH and GPG public keys per user, parsed and checked (type, size, data),
 * named, renamed and deleted by the user or an admin; GET /ssh_authorized_keys serves the SSH
 * keys as authorized_keys text. Malformed keys answer 400 {msg} and store nothing.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { GET as keysGet, POST as keysPost } from "@/app/api/v1/user/[username]/auth_key/route";
import { DELETE as keyDelete } from "@/app/api/v1/user/[username]/auth_key/[id]/route";
import { POST as keyRename } from "@/app/api/v1/user/[username]/auth_key/[id]/rename/route";
import { GET as authorizedGet } from "@/app/api/v1/ssh_authorized_keys/route";
import { call, createUser, query, signIn, type Jar } from "@/tests/helpers";
import { GPG_ED25519, GPG_RSA_1024, GPG_RSA_3072, SSH_DSA, SSH_ECDSA_256, SSH_ECDSA_521, SSH_ED25519, SSH_RSA_1024, SSH_RSA_3072 } from "@/tests/fixtures/auth-keys";
import { parseSshPublicKey } from "./ssh";
import { parseGpgPublicKey } from "./gpg";

let alice: Jar;
let bob: Jar;
let admin: Jar;

const keysPath = (u: string) => ({ path: `/api/v1/user/${u}/auth_key`, params: { username: u } });
const keyCount = async () => (await query<{ n: number }>("select count(*)::int n from authentication_keys"))[0].n;

function sshString(s: string | Buffer): Buffer {
  const b = typeof s === "string" ? Buffer.from(s, "latin1") : s;
  const len = Buffer.alloc(4);
  len.writeUInt32BE(b.length);
  return Buffer.concat([len, b]);
}
const sshLine = (type: string, parts: (string | Buffer)[]) => `${type} ${Buffer.concat(parts.map(sshString)).toString("base64")}`;

function msgOf(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    return (e as { msg: string }).msg;
  }
  throw new Error("expected a refusal");
}

async function addKey(jar: Jar, username: string, body: Record<string, unknown>) {
  return call(keysPost, { method: "POST", jar, body, ...keysPath(username) });
}

beforeAll(async () => {
  await createUser({ username: "alice", groups: ["servers"] });
  await createUser({ username: "bob" });
  await createUser({ username: "kadmin", isAdmin: true });
  alice = await signIn("alice");
  bob = await signIn("bob");
  admin = await signIn("kadmin");
});

describe("SSH key parsing", () => {
  it.each([
    ["ed25519", SSH_ED25519],
    ["RSA 3072", SSH_RSA_3072],
    ["ECDSA P-256", SSH_ECDSA_256],
    ["ECDSA P-521", SSH_ECDSA_521],
  ])("accepts %s as ssh-keygen writes it", (_, key) => {
    expect(parseSshPublicKey(`${key}\n`)).toBe(key);
  });

  it("accepts a security-key (sk-ssh-ed25519) key", () => {
    // The 32-byte public key of the ed25519 fixture, after its type string.
    const real = Buffer.from(SSH_ED25519.split(" ")[1], "base64").subarray(4 + 11 + 4);
    expect(real.length).toBe(32);
    const line = sshLine("sk-ssh-ed25519@openssh.com", ["sk-ssh-ed25519@openssh.com", real, "ssh:"]);
    expect(parseSshPublicKey(line)).toBe(line);
  });

  it.each([
    ["DSA", SSH_DSA, "unsupported SSH key type"],
    ["RSA below 2048 bits", SSH_RSA_1024, "at least 2048 bits"],
    ["a certificate", SSH_ED25519.replace("ssh-ed25519", "ssh-ed25519-cert-v01@openssh.com"), "unsupported SSH key type"],
    ["an options prefix", `command="/bin/sh" ${SSH_ED25519}`, "unsupported SSH key type"],
    ["a type that does not match the data", SSH_ED25519.replace(/^ssh-ed25519/, "ssh-rsa"), "does not match"],
    ["ecdsa curve mismatch", SSH_ECDSA_256.replace("ecdsa-sha2-nistp256", "ecdsa-sha2-nistp384"), "does not match"],
    ["bad base64", "ssh-ed25519 AAAA$$$$", "base64"],
    ["cut data", SSH_ED25519.split(" ").slice(0, 2).join(" ").slice(0, -8), ""],
    ["trailing bytes", sshLine("ssh-ed25519", ["ssh-ed25519", Buffer.alloc(32, 1), "extra"]), "malformed"],
    ["an Ed25519 key of 31 bytes", sshLine("ssh-ed25519", ["ssh-ed25519", Buffer.alloc(31, 1)]), "malformed"],
    ["an EC point off the curve", sshLine("ecdsa-sha2-nistp256", ["ecdsa-sha2-nistp256", "nistp256", Buffer.concat([Buffer.from([4]), Buffer.alloc(64, 1)])]), "malformed"],
    ["two keys on two lines", `${SSH_ED25519}\n${SSH_RSA_3072}`, "one line"],
    ["only a type", "ssh-ed25519", "one line"],
    ["a GPG key", GPG_ED25519, ""],
    ["a control character in the comment", `${SSH_ED25519.split(" ").slice(0, 2).join(" ")} evil\u0007`, "comment"],
  ])("refuses %s", (_, key, text) => {
    expect(msgOf(() => parseSshPublicKey(key))).toContain(text);
  });
});

describe("GPG key parsing", () => {
  it.each([
    ["ed25519", GPG_ED25519],
    ["RSA 3072", GPG_RSA_3072],
  ])("accepts %s as gpg --armor --export writes it", (_, key) => {
    expect(parseGpgPublicKey(key)).toBe(key.trim());
    expect(parseGpgPublicKey(key.replace(/\n/g, "\r\n"))).toBe(key.trim());
  });

  const lines = GPG_ED25519.trim().split("\n");
  const flipped = (() => {
    const l = [...lines];
    const i = 3;
    l[i] = (l[i][0] === "A" ? "B" : "A") + l[i].slice(1);
    return l.join("\n");
  })();

  it.each([
    ["RSA below 2048 bits", GPG_RSA_1024, "at least 2048 bits"],
    ["a changed byte (checksum)", flipped, "checksum"],
    ["no armor", lines.slice(2, -2).join("\n"), "ASCII-armored"],
    ["a private key block", GPG_ED25519.replace(/PUBLIC KEY BLOCK/g, "PRIVATE KEY BLOCK"), "ASCII-armored"],
    ["two keys", `${GPG_ED25519.trim()}\n${GPG_RSA_3072.trim()}`, "one GPG key"],
    ["garbage inside", `${lines[0]}\n\nnot base64 at all!\n${lines[lines.length - 1]}`, "base64"],
    ["an empty block", `${lines[0]}\n\n${lines[lines.length - 1]}`, "base64"],
    ["an SSH key", SSH_ED25519, "ASCII-armored"],
  ])("refuses %s", (_, key, text) => {
    expect(msgOf(() => parseGpgPublicKey(key))).toContain(text);
  });

  it("refuses a key block without user ID or signature (packets cut after the key)", () => {
    // Re-armor only the first packet (the primary key) with a correct checksum.
    const body = lines.slice(2, -2).join("");
    const data = Buffer.from(body, "base64");
    const len = data[1];
    const keyOnly = data.subarray(0, 2 + len);
    const armored = `-----BEGIN PGP PUBLIC KEY BLOCK-----\n\n${keyOnly.toString("base64")}\n-----END PGP PUBLIC KEY BLOCK-----`;
    expect(msgOf(() => parseGpgPublicKey(armored))).toContain("user ID");
  });
});

describe("API: /user/{username}/auth_key", () => {
  it("adds, lists (defguard's AuthenticationKeyInfo), renames and deletes a user's own keys", async () => {
    const ssh = await addKey(alice, "alice", { name: "laptop", key_type: "ssh", key: `${SSH_ED25519}\r\n` });
    expect(ssh.status, ssh.text).toBe(201);
    const gpg = await addKey(alice, "alice", { name: "signing", key_type: "gpg", key: GPG_ED25519 });
    expect(gpg.status, gpg.text).toBe(201);

    const list = await call(keysGet, { jar: alice, ...keysPath("alice") });
    expect(list.status).toBe(200);
    expect(list.json).toHaveLength(2);
    expect(Object.keys(list.json[0]).sort()).toEqual(["id", "key", "key_type", "name", "user_id", "yubikey_id", "yubikey_name", "yubikey_serial"]);
    expect(list.json[0]).toMatchObject({ name: "laptop", key_type: "ssh", key: SSH_ED25519 });
    expect(list.json[1]).toMatchObject({ name: "signing", key_type: "gpg" });

    const id = list.json[0].id as number;
    const idPath = { path: `/api/v1/user/alice/auth_key/${id}`, params: { username: "alice", id: String(id) } };
    const renamed = await call(keyRename, { method: "POST", jar: alice, body: { name: "work laptop" }, ...idPath });
    expect(renamed.status, renamed.text).toBe(200);
    expect((await call(keysGet, { jar: alice, ...keysPath("alice") })).json[0].name).toBe("work laptop");

    const events = await query<{ event: string; username: string }>(
      "select event, username from activity_log where event like 'authentication_key_%' order by id",
    );
    expect(events).toEqual([
      { event: "authentication_key_added", username: "alice" },
      { event: "authentication_key_added", username: "alice" },
      { event: "authentication_key_renamed", username: "alice" },
    ]);

    const del = await call(keyDelete, { method: "DELETE", jar: alice, ...idPath });
    expect(del.status).toBe(200);
    expect((await call(keyDelete, { method: "DELETE", jar: alice, ...idPath })).status).toBe(404);
    expect((await call(keysGet, { jar: alice, ...keysPath("alice") })).json).toHaveLength(1);
  });

  it("409 for a key already added (comment and line ends do not make it new)", async () => {
    expect((await addKey(bob, "bob", { name: "a", key_type: "ssh", key: SSH_RSA_3072 })).status).toBe(201);
    const before = await keyCount();
    const again = await addKey(bob, "bob", { name: "b", key_type: "ssh", key: `${SSH_RSA_3072}\n` });
    expect(again.status).toBe(409);
    expect(again.json.msg).toBeTruthy();
    expect(await keyCount()).toBe(before);
  });

  it.each([
    [{ name: "x", key_type: "ssh", key: SSH_DSA }, "key", "unsupported SSH key type"],
    [{ name: "x", key_type: "ssh", key: SSH_RSA_1024 }, "key", "2048"],
    [{ name: "x", key_type: "ssh", key: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOTI" }, "key", ""],
    [{ name: "x", key_type: "gpg", key: SSH_ED25519 }, "key", "ASCII-armored"],
    [{ name: "x", key_type: "gpg", key: GPG_RSA_1024 }, "key", "2048"],
    [{ name: "x", key_type: "ssh", key: GPG_ED25519 }, "key", ""],
    [{ name: "x", key_type: "yubikey", key: SSH_ED25519 }, "key_type", ""],
    [{ name: "", key_type: "ssh", key: SSH_ECDSA_256 }, "name", ""],
    [{ name: "x", key_type: "ssh", key: "" }, "key", ""],
    [{ name: "x", key_type: "ssh" }, "key", ""],
  ])("bad input %#: 400 {msg} naming the field, nothing stored", async (body, field, text) => {
    const before = await keyCount();
    const res = await addKey(bob, "bob", body);
    expect(res.status, res.text).toBe(400);
    expect(res.json.field).toBe(field);
    expect(res.json.msg).toContain(field);
    expect(res.json.msg).toContain(text);
    expect(await keyCount()).toBe(before);
    expect(await query("select id from activity_log where event = 'authentication_key_added' and description like '%\"x\"%'")).toEqual([]);
  });

  it("another user gets 403; an admin manages anyone's keys; ids of another user are 404", async () => {
    expect((await addKey(bob, "alice", { name: "sneaky", key_type: "ssh", key: SSH_ECDSA_521 })).status).toBe(403);
    expect((await call(keysGet, { jar: bob, ...keysPath("alice") })).status).toBe(403);
    const made = await addKey(admin, "alice", { name: "by admin", key_type: "ssh", key: SSH_ECDSA_521 });
    expect(made.status).toBe(201);
    const id = made.json.id as number;
    // Bob may not delete Alice's key through his own path.
    const viaBob = await call(keyDelete, { method: "DELETE", jar: bob, path: `/api/v1/user/bob/auth_key/${id}`, params: { username: "bob", id: String(id) } });
    expect(viaBob.status).toBe(404);
    const rename = await call(keyRename, { method: "POST", jar: bob, body: { name: "mine" }, path: `/api/v1/user/bob/auth_key/${id}/rename`, params: { username: "bob", id: String(id) } });
    expect(rename.status).toBe(404);
    const [row] = await query<{ name: string }>("select name from authentication_keys where id = $1", [id]);
    expect(row.name).toBe("by admin");
  });
});

describe("GET /ssh_authorized_keys", () => {
  const fetchKeys = (qs: string) => call(authorizedGet, { path: `/api/v1/ssh_authorized_keys${qs}` });

  beforeAll(async () => {
    await createUser({ username: "carol", groups: ["servers"] });
    await createUser({ username: "dave", groups: ["servers"], isActive: false });
    const carol = await signIn("carol");
    expect((await addKey(carol, "carol", { name: "c", key_type: "ssh", key: SSH_RSA_3072 })).status).toBe(201);
    expect((await addKey(carol, "carol", { name: "g", key_type: "gpg", key: GPG_RSA_3072 })).status).toBe(201);
    await query(
      "insert into authentication_keys (user_id, name, key_type, key) select id, 'd', 'ssh', $1 from users where username = 'dave'",
      [SSH_ED25519],
    );
  });

  it("answers text/plain with a user's SSH keys (no GPG keys), without a session", async () => {
    const res = await fetchKeys("?username=carol");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/plain/);
    expect(res.text).toBe(SSH_RSA_3072);
  });

  it("a group gives its active members' keys; group and username together narrow to a member", async () => {
    const alicesKeys = (await query<{ key: string }>("select k.key from authentication_keys k join users u on u.id = k.user_id where u.username = 'alice' and k.key_type = 'ssh' order by k.id")).map((r) => r.key);
    expect(alicesKeys.length).toBeGreaterThan(0);
    const res = await fetchKeys("?group=servers");
    expect(res.text.split("\n")).toEqual([...alicesKeys, SSH_RSA_3072]);
    expect(res.text).not.toContain(SSH_ED25519.split(" ")[1]); // dave is disabled
    expect((await fetchKeys("?group=servers&username=carol")).text).toBe(SSH_RSA_3072);
    expect((await fetchKeys("?group=servers&username=bob")).text).toBe("");
  });

  it("empty for no filter, unknown names and disabled users (never an error)", async () => {
    for (const qs of ["", "?username=nobody", "?group=nogroup", "?username=dave"]) {
      const res = await fetchKeys(qs);
      expect(res.status, qs).toBe(200);
      expect(res.text, qs).toBe("");
    }
  });

  it("every line is a key sshd can read (one line each, no options)", async () => {
    const res = await fetchKeys("?group=servers");
    for (const line of res.text.split("\n")) expect(parseSshPublicKey(line)).toBe(line);
  });
});
