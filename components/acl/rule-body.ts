import type { AclRule } from "./api";

/** The PUT /acl/rule/{id} body that keeps everything of `r` (id, state and parent left out). */
export function ruleBody(r: AclRule) {
  return {
    name: r.name,
    all_networks: r.all_networks,
    networks: r.networks,
    expires: r.expires ?? null,
    enabled: r.enabled,
    allow_all_users: r.allow_all_users,
    deny_all_users: r.deny_all_users,
    allow_all_network_devices: r.allow_all_network_devices,
    deny_all_network_devices: r.deny_all_network_devices,
    allowed_users: r.allowed_users,
    denied_users: r.denied_users,
    allowed_groups: r.allowed_groups,
    denied_groups: r.denied_groups,
    allowed_devices: r.allowed_devices,
    denied_devices: r.denied_devices,
    destination: r.destination,
    aliases: r.aliases,
    ports: r.ports,
    protocols: r.protocols,
  };
}
