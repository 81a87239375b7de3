/**
 * GET /outdated: gateways below the minimum version, each with the location it serves (the
 * console's notice links there); current and unknown versions are not listed.
 */
import { beforeAll, expect, it } from "vitest";
import { GET as outdatedGet } from "@/app/api/v1/outdated/route";
import { MIN_GATEWAY_VERSION } from "@/lib/platform/unbuilt";
import { call, createUser, query, signIn, type Jar } from "@/tests/helpers";

let admin: Jar;

beforeAll(async () => {
  await createUser({ username: "out-admin", isAdmin: true });
  admin = await signIn("out-admin");
});

it("lists only gateways older than the minimum, with their location; none: an empty list", async () => {
  expect((await call(outdatedGet, { path: "/api/v1/outdated", jar: admin })).json).toEqual({ gateways: [], proxy: null });
  const [loc] = await query<{ id: number }>(
    "insert into locations (name, address, port, endpoint, pubkey, prvkey_enc) values ('Branch', '{10.8.0.1/24}', 51820, 'vpn.example.com', 'pub', 'x') returning id",
  );
  const min = MIN_GATEWAY_VERSION.join(".");
  await query(
    "insert into gateways (location_id, hostname, version) values ($1, 'old', '1.2.9'), ($1, 'current', $2), ($1, 'newer', '9.0.0'), ($1, 'unknown', null)",
    [loc.id, min],
  );
  const res = await call(outdatedGet, { path: "/api/v1/outdated", jar: admin });
  expect(res.status).toBe(200);
  expect(res.json).toEqual({ gateways: [{ version: "1.2.9", hostname: "old", location_id: loc.id, location_name: "Branch" }], proxy: null });
});
