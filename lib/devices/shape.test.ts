/**
 * Device and UserDevice have one producer each (docs/architecture.md "Wire shapes"): the
 * deviceJson fragment for every Device, listUserDevices for UserDevice, one view function for
 * network devices. The single and list forms of the same device must agree field by field.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { createUser } from "@/tests/helpers";
import { locationBody, newKey } from "@/tests/wireguard-fixtures";
import { locationSchema } from "@/lib/locations/schema";
import { createLocation } from "@/lib/locations/service";
import { createUserDevice, getDevice, listDevicesJson, listUserDevices, updateDevice, type Device } from "./service";
import { createNetworkDevice, getNetworkDevice, listNetworkDevices, updateNetworkDevice } from "./network";

const ACTOR = { userId: null, username: "shape-test", ip: null };
const ADMIN = { userId: 0, isAdmin: true };
const FIELDS = ["id", "name", "wireguard_pubkey", "user_id", "created", "description", "device_type", "configured"];

let ownerId = 0;
let locationId = 0;

beforeAll(async () => {
  ownerId = (await createUser({ username: "shape-owner" })).id;
  locationId = (await createLocation(ACTOR, locationSchema.parse(locationBody({ address: "10.61.0.1/24" })))).id;
});

function expectSame(a: object, b: object, what: string, fields = FIELDS) {
  for (const f of fields) expect((b as Record<string, unknown>)[f], `${what}: ${f}`).toEqual((a as Record<string, unknown>)[f]);
}

describe("Device: single and list forms", () => {
  it("create, update, single read, GET /device and the UserDevice list give the same Device", async () => {
    const created = (await createUserDevice(ACTOR, "shape-owner", { name: "laptop", wireguard_pubkey: newKey(), description: "first" })).device;
    const second = (await createUserDevice(ACTOR, "shape-owner", { name: "phone", wireguard_pubkey: newKey(), description: null })).device;
    expect(Object.keys(created)).toEqual(FIELDS);
    expect(created).toMatchObject({ user_id: ownerId, device_type: "user", configured: true });
    expect(created.created).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

    const updated = await updateDevice(ACTOR, created.id, ADMIN, { name: "laptop-2", wireguard_pubkey: created.wireguard_pubkey!, description: "renamed" });
    const list = JSON.parse((await listDevicesJson()).toString("utf8")) as Device[];
    const userDevices = await listUserDevices(ownerId);
    for (const d of [updated, second]) {
      const single = await getDevice(d.id, ADMIN);
      expect(Object.keys(single)).toEqual(FIELDS);
      expectSame(single, d, `${d.id} create/update answer`);
      expectSame(single, list.find((x) => x.id === d.id)!, `${d.id} GET /device`);
      const ud = userDevices.find((x) => x.id === d.id)!;
      expect(Object.keys(ud)).toEqual([...FIELDS, "networks"]);
      expectSame(single, ud, `${d.id} UserDevice`);
      expect(ud.networks.map((n) => n.network_id)).toEqual([locationId]);
    }
    expect(updated).toMatchObject({ name: "laptop-2", description: "renamed", created: created.created });
  });

  it("network devices: create, update, single read and list give the same object", async () => {
    const created = (
      await createNetworkDevice({ ...ACTOR, userId: ownerId }, { name: "router", description: null, location_id: locationId, assigned_ips: ["10.61.0.200"], wireguard_pubkey: newKey() })
    ).device;
    const updated = await updateNetworkDevice(ACTOR, created.id, { name: "router-2", description: "edge", location_id: locationId, assigned_ips: ["10.61.0.201"], wireguard_pubkey: null });
    const single = await getNetworkDevice(created.id);
    const fields = Object.keys(single);
    expect(fields).toEqual(Object.keys(created));
    expectSame(single, updated, "update answer", fields);
    expectSame(single, (await listNetworkDevices()).find((d) => d.id === created.id)!, "list", fields);
    expect(single).toMatchObject({ name: "router-2", assigned_ips: ["10.61.0.201"], added_by: "shape-owner" });
  });
});
