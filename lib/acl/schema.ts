import { z } from "zod";
import { parseAddressList, parsePortList } from "../net/ranges";
import { requiredOrType, V } from "../validation";

/**
 * Bodies of the ACL API (defguard 1.6 wire shapes, docs/acl.md), shared with the forms.
 * Messages are keys under `validation.` in messages/*.json.
 */
export const ACL_V = {
  destination: "aclDestination",
  rangeOrder: "aclRangeOrder",
  rangeFamily: "aclRangeFamily",
  ports: "aclPorts",
  portOrder: "aclPortOrder",
  maxPort: "maxPort",
  protocol: "aclProtocol",
  noAllowed: "aclNoAllowed",
  conflict: "aclConflict",
  expiryPast: "aclExpiryPast",
  expiry: "aclExpiry",
} as const;

/** IANA protocol numbers the gateways understand: ICMP, TCP, UDP. */
export const ACL_PROTOCOLS = [1, 6, 17] as const;
export type AclProtocol = (typeof ACL_PROTOCOLS)[number];

export const RULE_STATES = ["new", "applied", "modified", "deleted", "expired"] as const;
export type RuleState = (typeof RULE_STATES)[number];
export const ALIAS_STATES = ["applied", "modified"] as const;
export type AliasState = (typeof ALIAS_STATES)[number];
export const ALIAS_KINDS = ["destination", "component"] as const;
export type AliasKind = (typeof ALIAS_KINDS)[number];

const MAX_ID = 2_147_483_647;
const idList = z.array(z.number({ error: V.invalidType }).int({ error: V.invalidNumber }).positive({ error: V.invalidNumber }).max(MAX_ID, { error: V.invalidNumber }), { error: V.invalidType }).max(100_000, { error: V.tooLong });

export const aclNameSchema = z
  .string(requiredOrType)
  .trim()
  .min(1, { error: V.required })
  .max(255, { error: V.tooLong })
  .regex(/^[^<>\p{Cc}]+$/u, { error: V.forbiddenChars });

/** "192.0.2.0/24, 192.0.2.10-192.0.2.20, 2001:db8::1" (empty: any destination). */
export const destinationSchema = z
  .string({ error: V.invalidType })
  .max(100_000, { error: V.tooLong })
  .superRefine((v, ctx) => {
    const r = parseAddressList(v);
    if (r.ok) return;
    ctx.addIssue({ code: "custom", message: r.error === "rangeOrder" ? ACL_V.rangeOrder : r.error === "rangeFamily" ? ACL_V.rangeFamily : ACL_V.destination });
  });

/** "22, 8000-9000" (empty: every port). */
export const portsSchema = z
  .string({ error: V.invalidType })
  .max(10_000, { error: V.tooLong })
  .superRefine((v, ctx) => {
    const r = parsePortList(v);
    if (r.ok) return;
    ctx.addIssue({ code: "custom", message: r.error === "maxPort" ? ACL_V.maxPort : r.error === "rangeOrder" ? ACL_V.portOrder : ACL_V.ports });
  });

export const protocolsSchema = z
  .array(z.number({ error: V.invalidType }).refine((p) => (ACL_PROTOCOLS as readonly number[]).includes(p), { error: ACL_V.protocol }), { error: V.invalidType })
  .max(3, { error: V.tooLong });

/**
 * `expires`: an ISO 8601 date-time, UTC when it names no zone (defguard sends
 * "2025-06-01T12:00:00"), or null for never.
 */
export const expiresSchema = z
  .string({ error: V.invalidType })
  .nullable()
  .superRefine((v, ctx) => {
    if (v === null) return;
    if (parseExpires(v) === null) ctx.addIssue({ code: "custom", message: ACL_V.expiry });
  });

const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?$/;

/** The instant an `expires` text names (no zone = UTC), or null when it is not a date-time. */
export function parseExpires(v: string): Date | null {
  const s = v.trim();
  if (!ISO_DATE_TIME.test(s)) return null;
  const withZone = /(Z|[+-]\d{2}:?\d{2})$/.test(s) ? s : `${s}Z`;
  const d = new Date(withZone.replace(" ", "T").replace(/\.(\d{3})\d+/, ".$1"));
  return Number.isNaN(d.getTime()) ? null : d;
}

/** defguard's NaiveDateTime form, in UTC: "2025-06-01T12:00:00". */
export function formatExpires(d: Date | null): string | null {
  return d ? d.toISOString().replace(/\.\d{3}Z$/, "") : null;
}

const flag = z.boolean({ error: V.invalidType });

/** The fields of an ACL rule body without the rules that tie fields together. */
export const aclRuleFields = z.object({
  name: aclNameSchema,
  all_networks: flag.default(false),
  networks: idList.default([]),
  expires: expiresSchema.default(null),
  enabled: flag.default(true),
  allow_all_users: flag.default(false),
  deny_all_users: flag.default(false),
  allow_all_network_devices: flag.default(false),
  deny_all_network_devices: flag.default(false),
  allowed_users: idList.default([]),
  denied_users: idList.default([]),
  allowed_groups: idList.default([]),
  denied_groups: idList.default([]),
  allowed_devices: idList.default([]),
  denied_devices: idList.default([]),
  destination: destinationSchema.default(""),
  aliases: idList.default([]),
  ports: portsSchema.default(""),
  protocols: protocolsSchema.default([]),
});

type RuleFields = z.infer<typeof aclRuleFields>;

/** SPEC rules across fields: something allowed, nothing both allowed and denied, expiry ahead. */
export function checkRule(v: RuleFields, ctx: z.RefinementCtx, now: () => number = Date.now) {
  if (!(v.allow_all_users || v.allow_all_network_devices || v.allowed_users.length || v.allowed_groups.length || v.allowed_devices.length)) {
    ctx.addIssue({ code: "custom", path: ["allowed_users"], message: ACL_V.noAllowed });
    return;
  }
  const pairs: [keyof RuleFields, keyof RuleFields][] = [
    ["allowed_users", "denied_users"],
    ["allowed_groups", "denied_groups"],
    ["allowed_devices", "denied_devices"],
  ];
  for (const [a, d] of pairs) {
    const denied = new Set(v[d] as number[]);
    if ((v[a] as number[]).some((id) => denied.has(id))) {
      ctx.addIssue({ code: "custom", path: [d], message: ACL_V.conflict });
      return;
    }
  }
  if (v.allow_all_users && v.deny_all_users) return void ctx.addIssue({ code: "custom", path: ["deny_all_users"], message: ACL_V.conflict });
  if (v.allow_all_network_devices && v.deny_all_network_devices) return void ctx.addIssue({ code: "custom", path: ["deny_all_network_devices"], message: ACL_V.conflict });
  if (v.expires !== null) {
    const d = parseExpires(v.expires);
    if (d && d.getTime() <= now()) ctx.addIssue({ code: "custom", path: ["expires"], message: ACL_V.expiryPast });
  }
}

/** POST /acl/rule and PUT /acl/rule/{id} (EditAclRule). */
export const aclRuleSchema = aclRuleFields.superRefine((v, ctx) => checkRule(v, ctx));
export type AclRuleInput = z.infer<typeof aclRuleSchema>;

/** POST /acl/alias and PUT /acl/alias/{id} (EditAclAlias). */
export const aclAliasSchema = z.object({
  name: aclNameSchema,
  kind: z.enum(ALIAS_KINDS, { error: V.invalidOption }).default("destination"),
  destination: destinationSchema.default(""),
  ports: portsSchema.default(""),
  protocols: protocolsSchema.default([]),
});
export type AclAliasInput = z.infer<typeof aclAliasSchema>;

/** PUT /acl/rule/apply. */
export const applyRulesSchema = z.object({ rules: idList.min(1, { error: V.required }) });
/** PUT /acl/alias/apply. */
export const applyAliasesSchema = z.object({ aliases: idList.min(1, { error: V.required }) });

/** Query of GET /acl/check. */
export const aclCheckQuery = z
  .object({
    location: z.coerce.number({ error: V.invalidNumber }).int({ error: V.invalidNumber }).positive({ error: V.invalidNumber }).max(MAX_ID, { error: V.invalidNumber }),
    user: z.string({ error: V.invalidType }).min(1, { error: V.required }).max(63, { error: V.tooLong }).optional(),
    device: z.coerce.number({ error: V.invalidNumber }).int({ error: V.invalidNumber }).positive({ error: V.invalidNumber }).max(MAX_ID, { error: V.invalidNumber }).optional(),
    destination: z.string(requiredOrType).min(1, { error: V.required }).max(64, { error: V.tooLong }),
    port: z.coerce.number({ error: V.invalidNumber }).int({ error: V.invalidNumber }).min(1, { error: "invalidPort" }).max(65535, { error: ACL_V.maxPort }).optional(),
    protocol: z.coerce.number({ error: V.invalidNumber }).refine((p) => (ACL_PROTOCOLS as readonly number[]).includes(p), { error: ACL_V.protocol }).optional(),
  })
  .superRefine((v, ctx) => {
    if ((v.user === undefined) === (v.device === undefined)) ctx.addIssue({ code: "custom", path: ["user"], message: "aclCheckWho" });
  });
export type AclCheckQuery = z.infer<typeof aclCheckQuery>;

const idsParam = z
  .union([z.string(), z.array(z.string())], { error: V.invalidType })
  .optional()
  .transform((v, ctx) => {
    const list = (v === undefined ? [] : Array.isArray(v) ? v : [v]).flatMap((s) => s.split(",")).map((s) => s.trim()).filter(Boolean);
    const out: number[] = [];
    for (const s of list) {
      if (!/^[1-9]\d{0,9}$/.test(s) || Number(s) > MAX_ID) {
        ctx.addIssue({ code: "custom", message: V.invalidNumber });
        return z.NEVER;
      }
      out.push(Number(s));
    }
    return out;
  });

/** Query of GET /acl/impact: pending rules and aliases (ids, repeated or comma separated). */
export const aclImpactQuery = z.object({ rules: idsParam, aliases: idsParam });
export type AclImpactQuery = z.infer<typeof aclImpactQuery>;
