/**
 * The console's navigation, in the order of docs/ui.md. Later issues flip `ready` when their
 * screen exists; only ready entries are shown, admin-only ones only to admins, and entries
 * tied to a module only while that module is enabled (settings essentials).
 */
import {
  Activity,
  Boxes,
  ClipboardList,
  FileKey,
  Laptop,
  LayoutDashboard,
  LifeBuoy,
  LogOut,
  MapPin,
  MonitorSmartphone,
  Settings,
  ShieldCheck,
  UserPlus,
  UserRound,
  Users,
  UsersRound,
  Webhook,
  type LucideIcon,
} from "lucide-react";
import type { Essentials } from "@/lib/api/types";

export type NavKey =
  | "overview"
  | "locations"
  | "users"
  | "groups"
  | "network-devices"
  | "acl"
  | "openid"
  | "webhooks"
  | "provisioners"
  | "enrollment"
  | "activity"
  | "reports"
  | "settings"
  | "support"
  | "devices"
  | "profile"
  | "logout";

type ModuleFlag = "wireguard_enabled" | "webhooks_enabled" | "worker_enabled" | "openid_enabled";

export interface NavEntry {
  key: NavKey;
  /** Absent for actions (Log out). */
  href?: string;
  icon: LucideIcon;
  adminOnly: boolean;
  ready: boolean;
  /** Main list, or the bottom group (My Profile, Log out). */
  placement: "main" | "bottom";
  module?: ModuleFlag;
}

export const NAV: readonly NavEntry[] = [
  { key: "overview", href: "/overview", icon: LayoutDashboard, adminOnly: true, ready: true, placement: "main", module: "wireguard_enabled" },
  { key: "locations", href: "/locations", icon: MapPin, adminOnly: true, ready: true, placement: "main", module: "wireguard_enabled" },
  { key: "users", href: "/users", icon: Users, adminOnly: true, ready: true, placement: "main" },
  { key: "groups", href: "/groups", icon: UsersRound, adminOnly: true, ready: true, placement: "main" },
  { key: "network-devices", href: "/network-devices", icon: MonitorSmartphone, adminOnly: true, ready: true, placement: "main", module: "wireguard_enabled" },
  { key: "acl", href: "/acl", icon: ShieldCheck, adminOnly: true, ready: true, placement: "main", module: "wireguard_enabled" },
  { key: "openid", href: "/openid", icon: Boxes, adminOnly: true, ready: true, placement: "main", module: "openid_enabled" },
  { key: "webhooks", href: "/webhooks", icon: Webhook, adminOnly: true, ready: true, placement: "main", module: "webhooks_enabled" },
  { key: "provisioners", href: "/provisioners", icon: FileKey, adminOnly: true, ready: true, placement: "main", module: "worker_enabled" },
  { key: "enrollment", href: "/enrollment", icon: UserPlus, adminOnly: true, ready: true, placement: "main" },
  { key: "activity", href: "/activity", icon: Activity, adminOnly: false, ready: true, placement: "main" },
  { key: "reports", href: "/reports/stale-access", icon: ClipboardList, adminOnly: true, ready: true, placement: "main" },
  { key: "settings", href: "/settings", icon: Settings, adminOnly: true, ready: true, placement: "main" },
  { key: "support", href: "/support", icon: LifeBuoy, adminOnly: true, ready: true, placement: "main" },
  { key: "devices", href: "/devices", icon: Laptop, adminOnly: false, ready: true, placement: "bottom", module: "wireguard_enabled" },
  { key: "profile", href: "/me", icon: UserRound, adminOnly: false, ready: true, placement: "bottom" },
  { key: "logout", icon: LogOut, adminOnly: false, ready: true, placement: "bottom" },
];

/** The entries this user may see, in order. */
export function visibleNav(isAdmin: boolean, essentials: Essentials | undefined): NavEntry[] {
  return NAV.filter(
    (e) => e.ready && (isAdmin || !e.adminOnly) && (!e.module || !essentials || essentials[e.module] !== false),
  );
}

/** An entry is active on its own page and on the pages below it. */
export function isActive(entry: NavEntry, pathname: string): boolean {
  return !!entry.href && (pathname === entry.href || pathname.startsWith(`${entry.href}/`));
}
