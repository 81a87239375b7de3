import { eq, sql } from "drizzle-orm";
import { getDb, type Tx } from "../db";
import { groupUsers, groups, users } from "../db/schema";
import { notFound } from "../errors";
import { isAdminSql } from "../auth/session";

/** UserInfo of API.md. */
export interface UserInfo {
  id: number;
  username: string;
  first_name: string;
  last_name: string;
  email: string;
  phone: string | null;
  is_active: boolean;
  enrolled: boolean;
  is_admin: boolean;
  mfa_enabled: boolean;
  totp_enabled: boolean;
  email_mfa_enabled: boolean;
  mfa_method: "None" | "OneTimePassword" | "Webauthn" | "Email";
  groups: string[];
  authorized_apps: { oauth2client_id: number; oauth2client_name: string; user_id: number }[];
  ldap_pass_requires_change: boolean;
}

export async function getUserInfo(userId: number, tx: Tx = getDb()): Promise<UserInfo> {
  const [u] = await tx
    .select({
      user: users,
      isAdmin: isAdminSql(users.id),
      groups: sql<string[]>`coalesce((select array_agg(g.name order by g.name) from ${groupUsers} gu join ${groups} g on g.id = gu.group_id where gu.user_id = ${users.id}), '{}')`,
    })
    .from(users)
    .where(eq(users.id, userId))
    .limit(1);
  if (!u) throw notFound("user not found");
  return toUserInfo(u.user, u.isAdmin, u.groups);
}

export function toUserInfo(u: typeof users.$inferSelect, isAdmin: boolean, groupNames: string[]): UserInfo {
  return {
    id: u.id,
    username: u.username,
    first_name: u.firstName,
    last_name: u.lastName,
    email: u.email,
    phone: u.phone,
    is_active: u.isActive,
    enrolled: u.enrolled,
    is_admin: isAdmin,
    mfa_enabled: u.mfaEnabled,
    totp_enabled: u.totpEnabled,
    email_mfa_enabled: u.emailMfaEnabled,
    mfa_method: u.mfaMethod as UserInfo["mfa_method"],
    groups: groupNames,
    authorized_apps: [],
    ldap_pass_requires_change: u.ldapPassRequiresChange,
  };
}
