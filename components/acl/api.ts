"use client";

import { queryOptions, useQuery, type QueryClient } from "@tanstack/react-query";
import { api, type Stripped } from "@/lib/api/client";

import type { CheckAnswer, ImpactAnswer } from "@/lib/acl/explain";
import type { ApiAclAlias, ApiAclRule } from "@/lib/acl/service";
import type { AliasKind, AliasState, RuleState } from "@/lib/acl/schema";

export type { AliasKind, AliasState, RuleState };

/** Access control wire shapes (defguard 1.6): GET /acl/rule and /acl/alias items. */
export type AclRule = Stripped<ApiAclRule>;
export type AclAlias = Stripped<ApiAclAlias>;

/** GET /acl/check answer: the verdict (and one per device checked), with the deciding rule. */
export type AccessCheck = Stripped<CheckAnswer>;
/** GET /acl/impact: per location, which devices gain and lose access to which destinations. */
export type Impact = Stripped<ImpactAnswer>;
export type LocationImpact = Impact["locations"][number];
export type ImpactPair = LocationImpact["gains"][number];

/** States and kinds compared case-insensitively (defguard itself sends "Applied", "Destination"). */
export function ruleState(r: { state: string }): RuleState {
  return r.state.toLowerCase() as RuleState;
}
export function aliasState(a: { state: string }): AliasState {
  return a.state.toLowerCase() as AliasState;
}
export function aliasKind(a: { kind: string }): AliasKind {
  return a.kind.toLowerCase() as AliasKind;
}

/** Pending: a change not deployed yet (new, modified, marked for deletion). */
export function isPendingRule(r: AclRule): boolean {
  const s = ruleState(r);
  return s === "new" || s === "modified" || s === "deleted";
}

export const aclKeys = {
  all: ["acl"] as const,
  rules: ["acl", "rules"] as const,
  rule: (id: number) => ["acl", "rules", id] as const,
  aliases: ["acl", "aliases"] as const,
  impact: (rules: number[], aliases: number[]) => ["acl", "impact", rules, aliases] as const,
  check: (q: Record<string, string | number>) => ["acl", "check", q] as const,
};

export const rulesQuery = queryOptions({
  queryKey: aclKeys.rules,
  queryFn: ({ signal }) => api.get<ApiAclRule[]>("/acl/rule", { signal }),
});

export const aliasesQuery = queryOptions({
  queryKey: aclKeys.aliases,
  queryFn: ({ signal }) => api.get<ApiAclAlias[]>("/acl/alias", { signal }),
});

export function useRules() {
  return useQuery(rulesQuery);
}

export function useAliases() {
  return useQuery(aliasesQuery);
}

export function useRule(id: number | null) {
  return useQuery({
    queryKey: aclKeys.rule(id ?? 0),
    queryFn: ({ signal }) => api.get<ApiAclRule>(`/acl/rule/${id}`, { signal }),
    enabled: id !== null,
  });
}

/** After any ACL change: rules and aliases (an alias lists its rules), previews and checks. */
export function refreshAcl(client: QueryClient) {
  return client.invalidateQueries({ queryKey: aclKeys.all });
}

/** Protocol number → name. */
export function protocolName(p: number): string {
  return p === 6 ? "TCP" : p === 17 ? "UDP" : p === 1 ? "ICMP" : String(p);
}

/** "10.0.0.0/24, 10.1.1.10-10.1.1.20" → its entries. */
export function splitList(text: string | null | undefined): string[] {
  return (text ?? "")
    .split(/[,\s]+/)
    .map((s) => s.trim())
    .filter(Boolean);
}
