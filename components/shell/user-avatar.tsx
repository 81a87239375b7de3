import { cn } from "@/components/ui/cn";
import type { UserInfo } from "@/lib/api/types";

export function displayName(user: Pick<UserInfo, "first_name" | "last_name" | "username">): string {
  return [user.first_name, user.last_name].filter(Boolean).join(" ") || user.username;
}

function initials(user: Pick<UserInfo, "first_name" | "last_name" | "username">): string {
  const parts = [user.first_name, user.last_name].filter(Boolean);
  const letters = parts.length ? parts.map((p) => p!.trim()[0]) : [user.username[0]];
  return letters.join("").slice(0, 2).toUpperCase();
}

/** Initials in a circle (no pictures are stored for users). */
export function UserAvatar({ user, size = 28, className }: { user: UserInfo; size?: number; className?: string }) {
  return (
    <span
      aria-hidden
      style={{ width: size, height: size, fontSize: Math.round(size * 0.4) }}
      className={cn(
        "inline-flex shrink-0 items-center justify-center rounded-full bg-accent-subtle font-semibold text-accent",
        className,
      )}
    >
      {initials(user)}
    </span>
  );
}
