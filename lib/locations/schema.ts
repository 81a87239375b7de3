import { z } from "zod";
import { cidrsOverlap, lastAddress, networkAddress, parseCidr, parseCidrOrIp, parseIp, type Cidr } from "../net/ip";
import { capacity, parseCidrList } from "../wireguard/ip";
import { fromText, requiredOrType, V } from "../validation";
import { deviceNameSchema, wireguardKeySchema } from "../devices/schema";

/** Unspecified, loopback, multicast and reserved ranges: no location network may include them. */
const SPECIAL = ["0.0.0.0/8", "127.0.0.0/8", "224.0.0.0/3", "::/127", "ff00::/8"].map((t) => parseCidr(t)!);

/** The location's own address: a host address of a network that holds only ordinary unicast addresses. */
function addressProblem(c: Cidr): string | null {
  if (SPECIAL.some((s) => cidrsOverlap(s, c))) return "addressSpecialRange";
  if (c.addr === networkAddress(c) || (c.version === 4 && c.addr === lastAddress(c))) return "addressNotHost";
  return null;
}

const HOSTNAME = /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?$/;

/** A DNS name; an all-digits-and-dots string is a (possibly malformed) IPv4 address, not a name. */
export const isHostName = (v: string) => HOSTNAME.test(v) && !/^[\d.]+$/.test(v);

export function isIpOrDomain(v: string): boolean {
  return parseIp(v) !== null || isHostName(v);
}

/** A comma-separated string or an array (what GET returns), normalised to trimmed entries. */
const listInput = z
  .union([z.string({ error: V.invalidType }), z.array(z.string({ error: V.invalidType }), { error: V.invalidType })])
  .transform((v) => (Array.isArray(v) ? v : v.split(",")).map((s) => s.trim()).filter(Boolean));

export const portSchema = z
  .number({ error: V.invalidNumber })
  .int({ error: V.invalidNumber })
  .min(1, { error: "invalidPort" })
  .max(65535, { error: "maxPort" });

export const LOCATION_MFA_MODES = ["disabled", "internal", "external"] as const;

const locationBase = z.object({
  name: z
    .string(requiredOrType)
    .trim()
    .min(1, { error: V.required })
    .max(64, { error: V.tooLong })
    .regex(/^[^<>\p{Cc}]+$/u, { error: V.forbiddenChars }),
  address: listInput
    // abort: later checks must not run on an empty or oversized list (the overlap check is quadratic).
    .refine((l) => l.length > 0, { error: V.required, abort: true })
    .refine((l) => l.length <= 16, { error: V.tooLong, abort: true })
    .superRefine((list, ctx) => {
      const parsed = parseCidrList(list.join(","));
      if (!parsed.ok) return void ctx.addIssue({ code: "custom", message: "invalidAddressNetmask" });
      const c = parsed.value;
      if (c.some((x) => capacity(x) < 1n)) return void ctx.addIssue({ code: "custom", message: "noRoomForDevices" });
      const problem = c.map(addressProblem).find((p) => p !== null);
      if (problem) return void ctx.addIssue({ code: "custom", message: problem });
      const overlap = c.some((a, i) => c.slice(i + 1).some((b) => cidrsOverlap(a, b)));
      if (overlap) ctx.addIssue({ code: "custom", message: "overlappingAddresses" });
    }),
  endpoint: z
    .string(requiredOrType)
    .trim()
    .min(1, { error: V.required })
    .max(253, { error: V.tooLong })
    .refine(isIpOrDomain, { error: "invalidEndpoint" }),
  port: portSchema,
  allowed_ips: listInput
    .default([])
    .refine((l) => l.length <= 256, { error: V.tooLong, abort: true })
    .refine((l) => l.every((e) => parseCidrOrIp(e) !== null || isHostName(e)), { error: "invalidAllowedIps" }),
  dns: z
    .string({ error: V.invalidType })
    .trim()
    .max(1024, { error: V.tooLong })
    .nullish()
    .transform((v) => (v ? v : null))
    .refine((v) => v === null || v.split(",").map((s) => s.trim()).filter(Boolean).every(isIpOrDomain), { error: "invalidDns" }),
  allowed_groups: z.array(z.string({ error: V.invalidType }).max(64, { error: V.tooLong }), { error: V.invalidType }).max(1000).default([]),
  keepalive_interval: z.number({ error: V.invalidNumber }).int({ error: V.invalidNumber }).min(0, { error: "minValue" }).max(65535, { error: "maxValue" }).default(25),
  peer_disconnect_threshold: z.number({ error: V.invalidNumber }).int({ error: V.invalidNumber }).min(120, { error: "minValue" }).max(86_400, { error: "maxValue" }).default(300),
  acl_enabled: z.boolean({ error: V.invalidType }).default(false),
  acl_default_allow: z.boolean({ error: V.invalidType }).default(false),
  location_mfa_mode: z.enum(LOCATION_MFA_MODES, { error: V.invalidType }).optional(),
  /** Earlier wording of location_mfa_mode. */
  mfa_enabled: z.boolean({ error: V.invalidType }).optional(),
});

const withMfaMode = <T extends { mfa_enabled?: boolean; location_mfa_mode?: (typeof LOCATION_MFA_MODES)[number] }>({
  mfa_enabled,
  ...rest
}: T) => ({
  ...rest,
  location_mfa_mode: rest.location_mfa_mode ?? (mfa_enabled ? "internal" : "disabled"),
});

/** POST /network and PUT /network/{id} (docs/api.md location request). */
export const locationSchema = locationBase.transform(withMfaMode);

/** The location form: the same rules, with the number fields read from their text inputs. */
export const locationFormSchema = locationBase
  .extend({
    port: fromText(locationBase.shape.port),
    keepalive_interval: fromText(locationBase.shape.keepalive_interval),
    peer_disconnect_threshold: fromText(locationBase.shape.peer_disconnect_threshold),
  })
  .transform(withMfaMode);
export type LocationInput = z.infer<typeof locationSchema>;

/** POST /network/import: a wg-quick file becomes a location; its peers come back for mapping. */
export const importSchema = z.object({
  name: locationBase.shape.name,
  endpoint: locationBase.shape.endpoint,
  config: z.string(requiredOrType).min(1, { error: V.required }).max(512 * 1024, { error: V.tooLong }),
  allowed_groups: locationBase.shape.allowed_groups,
});

/** POST /network/{id}/devices: map imported peers to users. */
export const mapDevicesSchema = z.object({
  devices: z
    .array(
      z.object({
        name: deviceNameSchema,
        wireguard_pubkey: wireguardKeySchema,
        user_id: z.number({ error: V.invalidType }).int().positive(),
        wireguard_ips: listInput.refine((l) => l.length > 0, { error: V.required }),
      }),
      { error: V.invalidType },
    )
    .min(1, { error: V.required })
    .max(10_000),
});

/**
 * The wizard's mapping grid: the rows of mapDevicesSchema as the form holds them (addresses as
 * typed, comma-separated; the user as picked, or null). Its output is the route's body. No rows
 * is valid here: the wizard then finishes without a call.
 */
const mapRowSchema = mapDevicesSchema.shape.devices.element;
export const mapDevicesFormSchema = z.object({
  devices: z.array(
    mapRowSchema.extend({
      user_id: z
        .object({ id: mapRowSchema.shape.user_id, username: z.string() })
        .nullable()
        .refine((u) => u !== null, { error: V.required })
        .transform((u) => u!.id),
    }),
  ),
});

export const statsQuerySchema = z.object({ from: z.coerce.date({ error: "invalidDate" }).optional() });
