"use client";

import { splitList, type AclRule } from "./api";
import type { Chip } from "./chips";
import type { AclContext } from "./context";

type Maps = AclContext["maps"];

function named(ids: number[], map: Map<number, { name: string }>, prefix: string): Chip[] {
  return ids.map((id) => ({ key: `${prefix}-${id}`, label: map.get(id)?.name ?? `#${id}` }));
}

export interface RuleLabels {
  allUsers: string;
  allDevices: string;
  allLocations: string;
  anyDestination: string;
}

/** Who a rule lets through: everyone, or the users, groups and network devices it names. */
export function allowedChips(r: AclRule, maps: Maps, l: RuleLabels): Chip[] {
  return [
    ...(r.allow_all_users ? [{ key: "all-users", label: l.allUsers, plain: true }] : [...named(r.allowed_users, maps.users, "u"), ...named(r.allowed_groups, maps.groups, "g")]),
    ...(r.allow_all_network_devices ? [{ key: "all-devices", label: l.allDevices, plain: true }] : named(r.allowed_devices, maps.devices, "d")),
  ];
}

export function deniedChips(r: AclRule, maps: Maps, l: RuleLabels): Chip[] {
  return [
    ...(r.deny_all_users ? [{ key: "all-users", label: l.allUsers, plain: true }] : [...named(r.denied_users, maps.users, "u"), ...named(r.denied_groups, maps.groups, "g")]),
    ...(r.deny_all_network_devices ? [{ key: "all-devices", label: l.allDevices, plain: true }] : named(r.denied_devices, maps.devices, "d")),
  ];
}

export function locationChips(r: AclRule, maps: Maps, l: RuleLabels): Chip[] {
  return r.all_networks ? [{ key: "all", label: l.allLocations, plain: true }] : named(r.networks, maps.locations, "l");
}

/** Aliases by name, then the addresses typed into the rule. */
export function destinationChips(r: AclRule, maps: Maps, l: RuleLabels): Chip[] {
  const chips: Chip[] = [
    ...named(r.aliases, maps.aliases, "a"),
    ...splitList(r.destination).map((d, i) => ({ key: `d-${i}`, label: d, plain: true, mono: true })),
  ];
  return chips.length ? chips : [{ key: "any", label: l.anyDestination, plain: true }];
}

/** Text a search matches against: the name and every label of the row. */
export function ruleSearchText(r: AclRule, maps: Maps, l: RuleLabels): string {
  return [r.name, r.ports, ...[allowedChips, deniedChips, locationChips, destinationChips].flatMap((f) => f(r, maps, l).map((c) => c.label))]
    .join(" ")
    .toLowerCase();
}
