/**
 * UserInfo has one producer (the user_info view, docs/architecture.md "Wire shapes"): the
 * single read (GET /me, GET /user/{username}), the paged list, the searched list, the full
 * cached list (users_list_json) and the stats lookup must give every user with the same
 * fields, in the same order, with the same values.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { createUser, query } from "@/tests/helpers";
import { getUserInfo, listUsers, listUsersJson, userInfos, type UserInfo } from "./service";

const USERNAMES = ["shape-admin", "shape-plain", "shape-groups", "shape-off", "shape-mfa"];
const FIELDS = [
  "id", "username", "first_name", "last_name", "email", "phone", "is_active", "enrolled", "is_admin", "mfa_enabled",
  "totp_enabled", "email_mfa_enabled", "mfa_method", "groups", "authorized_apps", "ldap_pass_requires_change",
];

const ids = new Map<string, number>();

beforeAll(async () => {
  ids.set("shape-admin", (await createUser({ username: "shape-admin", isAdmin: true, groups: ["zeta", "alpha"] })).id);
  ids.set("shape-plain", (await createUser({ username: "shape-plain", password: null })).id);
  ids.set("shape-groups", (await createUser({ username: "shape-groups", groups: ["beta", "alpha"] })).id);
  ids.set("shape-off", (await createUser({ username: "shape-off", isActive: false })).id);
  ids.set("shape-mfa", (await createUser({ username: "shape-mfa", mfaEnabled: true })).id);
  await query("update users set phone = '+48 600 100 200', email_mfa_enabled = true where username = 'shape-groups'");
});

/** Field-by-field comparison that also fails on a different field order. */
function expectSame(a: UserInfo, b: UserInfo, what: string) {
  expect(Object.keys(b), what).toEqual(Object.keys(a));
  for (const f of FIELDS) expect(b[f as keyof UserInfo], `${what}: ${f}`).toEqual(a[f as keyof UserInfo]);
}

describe("UserInfo: single and list forms", () => {
  it("the single form has exactly the documented fields, in order", async () => {
    const one = await getUserInfo(ids.get("shape-groups")!);
    expect(Object.keys(one)).toEqual(FIELDS);
    expect(one).toMatchObject({ phone: "+48 600 100 200", email_mfa_enabled: true, groups: ["alpha", "beta"], is_admin: false });
    expect((await getUserInfo(ids.get("shape-admin")!)).is_admin).toBe(true);
  });

  it("every list form gives each user exactly as the single read does", async () => {
    const paged = (await listUsers({ page: 1, page_size: 100 })).data;
    const full = JSON.parse((await listUsersJson({})).toString("utf8")) as UserInfo[];
    const searched = JSON.parse((await listUsersJson({ search: "shape-" })).toString("utf8")) as UserInfo[];
    const byId = await userInfos([...ids.values()]);
    for (const name of USERNAMES) {
      const single = await getUserInfo(ids.get(name)!);
      expectSame(single, paged.find((u) => u.username === name)!, `${name} paged`);
      expectSame(single, full.find((u) => u.username === name)!, `${name} full list`);
      expectSame(single, searched.find((u) => u.username === name)!, `${name} search`);
      expectSame(single, byId.get(ids.get(name)!)!, `${name} stats lookup`);
    }
  });

  it("a change shows the same way in every form (the cached entry follows the view)", async () => {
    await query("update groups set name = 'aardvark' where name = 'alpha'");
    const single = await getUserInfo(ids.get("shape-groups")!);
    expect(single.groups).toEqual(["aardvark", "beta"]);
    const full = JSON.parse((await listUsersJson({})).toString("utf8")) as UserInfo[];
    expectSame(single, full.find((u) => u.username === "shape-groups")!, "full list after rename");
    expectSame(single, (await listUsers({ page: 1, search: "shape-groups" })).data[0], "paged search after rename");
  });
});
