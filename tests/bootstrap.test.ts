/**
 * First start (lib/bootstrap.ts): the `admin` group (is_admin) and the `admin` user, once per
 * database. Each test gets a brand-new database: bootstrap is about the very first run.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { POST as authPost } from "@/app/api/v1/auth/route";
import { generatePassword } from "@/lib/bootstrap";
import { passwordSchema } from "@/lib/validation";
import { bootstrap, call, query, signIn, useFreshDatabase } from "./helpers";

async function counts() {
  const [r] = await query<{ users: number; groups: number; members: number }>(
    "select (select count(*)::int from users) users, (select count(*)::int from groups) groups, (select count(*)::int from group_users) members",
  );
  return r;
}

describe("bootstrap", () => {
  beforeEach(async () => {
    delete process.env.DEFGUARD_DEFAULT_ADMIN_PASSWORD;
    await useFreshDatabase();
  });
  afterEach(() => {
    delete process.env.DEFGUARD_DEFAULT_ADMIN_PASSWORD;
  });

  it("creates the admin group and user on the first run, with a generated password that signs in", async () => {
    expect(await counts()).toEqual({ users: 0, groups: 0, members: 0 });
    const result = await bootstrap();
    expect(result.createdAdmin).toBe(true);
    expect(typeof result.generatedPassword).toBe("string");
    expect(passwordSchema.safeParse(result.generatedPassword).success).toBe(true);

    const [group] = await query<{ name: string; is_admin: boolean }>("select name, is_admin from groups");
    expect(group).toEqual({ name: "admin", is_admin: true });
    const [user] = await query<{ username: string; is_active: boolean; password_hash: string }>(
      "select username, is_active, password_hash from users",
    );
    expect(user.username).toBe("admin");
    expect(user.is_active).toBe(true);
    expect(user.password_hash).toMatch(/^\$argon2id\$/);
    expect(user.password_hash).not.toContain(result.generatedPassword!);
    expect(await counts()).toEqual({ users: 1, groups: 1, members: 1 });

    const res = await call(authPost, {
      method: "POST",
      path: "/api/v1/auth",
      body: { username: "admin", password: result.generatedPassword },
    });
    expect(res.status).toBe(200);
    expect(res.json.user).toMatchObject({ username: "admin", is_admin: true, groups: ["admin"] });
    const [settings] = await query<{ initialized: boolean }>("select initialized_at is not null initialized from settings where id = 1");
    expect(settings.initialized).toBe(true);
  });

  it("is a no-op on the second run", async () => {
    const first = await bootstrap();
    expect(first.createdAdmin).toBe(true);
    const [before] = await query<{ password_hash: string }>("select password_hash from users where username = 'admin'");
    const second = await bootstrap();
    expect(second).toEqual({ createdAdmin: false, generatedPassword: null });
    expect(await counts()).toEqual({ users: 1, groups: 1, members: 1 });
    const [after] = await query<{ password_hash: string }>("select password_hash from users where username = 'admin'");
    expect(after.password_hash).toBe(before.password_hash);
    // The first password still works.
    await signIn("admin", first.generatedPassword!);
  });

  it("does not recreate an admin the operator deleted or renamed", async () => {
    await bootstrap();
    await query("delete from users where username = 'admin'");
    expect(await bootstrap()).toEqual({ createdAdmin: false, generatedPassword: null });
    expect((await counts()).users).toBe(0);
  });

  it("runs once when several processes start together", async () => {
    const results = await Promise.all([bootstrap(), bootstrap(), bootstrap()]);
    expect(results.filter((r) => r.createdAdmin)).toHaveLength(1);
    expect(results.filter((r) => r.generatedPassword !== null)).toHaveLength(1);
    expect(await counts()).toEqual({ users: 1, groups: 1, members: 1 });
  });

  it("uses DEFGUARD_DEFAULT_ADMIN_PASSWORD when set (and does not hand it back)", async () => {
    process.env.DEFGUARD_DEFAULT_ADMIN_PASSWORD = "Operator-Chosen-9";
    const result = await bootstrap();
    expect(result).toEqual({ createdAdmin: true, generatedPassword: null });
    const jar = await signIn("admin", "Operator-Chosen-9");
    expect(jar.defguard_session).toBeTruthy();
  });

  it("refuses an invalid DEFGUARD_DEFAULT_ADMIN_PASSWORD and creates nothing", async () => {
    for (const bad of ["short1!", "alllowercase1!", "NoDigitsHere!", "NoSpecial123"]) {
      process.env.DEFGUARD_DEFAULT_ADMIN_PASSWORD = bad;
      await expect(bootstrap(), bad).rejects.toThrow(/DEFGUARD_DEFAULT_ADMIN_PASSWORD/);
      expect(await counts()).toEqual({ users: 0, groups: 0, members: 0 });
    }
    // Fixing the variable and starting again works: the failed attempt left no marker behind.
    process.env.DEFGUARD_DEFAULT_ADMIN_PASSWORD = "Fixed-Passw0rd";
    expect((await bootstrap()).createdAdmin).toBe(true);
    await signIn("admin", "Fixed-Passw0rd");
  });

  it("joins an existing `admin` user to the admin group instead of failing", async () => {
    await query("insert into users (username, email) values ('Admin', 'someone@example.com')");
    const result = await bootstrap();
    expect(result.createdAdmin).toBe(false);
    const rows = await query<{ name: string }>(
      "select g.name from group_users gu join groups g on g.id = gu.group_id join users u on u.id = gu.user_id where lower(u.username) = 'admin'",
    );
    expect(rows.map((r) => r.name)).toEqual(["admin"]);
  });
});

describe("generatePassword", () => {
  it("always satisfies the password rules and differs every time", () => {
    const seen = new Set<string>();
    for (let i = 0; i < 200; i++) {
      const p = generatePassword();
      expect(passwordSchema.safeParse(p).success, p).toBe(true);
      seen.add(p);
    }
    expect(seen.size).toBe(200);
  });
});
