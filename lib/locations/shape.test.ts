/**
 * The Location response has one producer, locationResponses (docs/architecture.md "Wire
 * shapes"): the list, the single read and the create and update answers must agree field by
 * field — gateways and allowed groups included (an update once answered without gateways).
 */
import { beforeAll, describe, expect, it } from "vitest";
import { createUser, query } from "@/tests/helpers";
import { locationBody } from "@/tests/wireguard-fixtures";
import { locationSchema } from "./schema";
import { createLocation, getLocation, listLocations, updateLocation } from "./service";

const ACTOR = { userId: null, username: "shape-test", ip: null };

beforeAll(async () => {
  await createUser({ username: "loc-member", groups: ["loc-b", "loc-a"] });
});

describe("Location: single and list forms", () => {
  it("create, update, single read and list give the same object", async () => {
    const body = locationBody({ name: "shape-loc", address: "10.62.0.1/24", allowed_groups: ["loc-b", "loc-a"] });
    const created = await createLocation(ACTOR, locationSchema.parse(body));
    expect(created.allowed_groups).toEqual(["loc-a", "loc-b"]);
    expect(created.gateways).toEqual([]);
    expect(created).not.toHaveProperty("prvkey");
    expect(created).toEqual(await getLocation(created.id));

    await query(
      `insert into gateways (location_id, hostname, name, version, connected, connected_at)
       values ($1, 'gw-a', 'edge', '1.6.0', true, now())`,
      [created.id],
    );
    const updated = await updateLocation(ACTOR, created.id, locationSchema.parse({ ...body, name: "shape-loc-2", allowed_groups: ["loc-a"] }));
    const single = await getLocation(created.id);
    const listed = (await listLocations()).find((l) => l.id === created.id)!;
    for (const [what, other] of [["update answer", updated], ["list", listed]] as const) {
      expect(Object.keys(other), what).toEqual(Object.keys(single));
      for (const f of Object.keys(single)) expect((other as Record<string, unknown>)[f], `${what}: ${f}`).toEqual((single as Record<string, unknown>)[f]);
    }
    expect(single).toMatchObject({ name: "shape-loc-2", allowed_groups: ["loc-a"], connected: true });
    expect(single.gateways).toHaveLength(1);
    expect(single.gateways[0]).toMatchObject({ hostname: "gw-a", name: "edge", connected: true, network_id: created.id, network_name: "shape-loc-2" });
  });
});
