"use client";

import { useState } from "react";
import { useTranslations } from "next-intl";
import * as DialogPrimitive from "@radix-ui/react-dialog";
import { Menu } from "lucide-react";
import type { UserInfo } from "@/lib/api/types";
import { Button } from "@/components/ui/button";
import { NavBrand } from "./brand";
import type { NavEntry } from "./nav";
import { Sidebar } from "./sidebar";
import { UserMenu } from "./user-menu";

/** Phones: a top bar with a menu button that opens the navigation as a drawer. */
export function MobileBar({ entries, user }: { entries: NavEntry[]; user: UserInfo }) {
  const t = useTranslations("nav");
  const [open, setOpen] = useState(false);
  return (
    <header className="sticky top-0 z-30 flex h-14 items-center gap-2 border-b border-border bg-surface/90 px-2 backdrop-blur">
      <DialogPrimitive.Root open={open} onOpenChange={setOpen}>
        <DialogPrimitive.Trigger asChild>
          <Button variant="ghost" size="icon" aria-label={t("openMenu")}>
            <Menu aria-hidden />
          </Button>
        </DialogPrimitive.Trigger>
        <DialogPrimitive.Portal>
          <DialogPrimitive.Overlay className="fixed inset-0 z-40 bg-overlay animate-fade-in" />
          <DialogPrimitive.Content
            aria-describedby={undefined}
            className="fixed inset-y-0 left-0 z-50 flex max-w-[85vw] border-r border-border shadow-popover animate-drawer-in focus:outline-none"
          >
            <DialogPrimitive.Title className="sr-only">{t("label")}</DialogPrimitive.Title>
            <Sidebar entries={entries} user={user} onNavigate={() => setOpen(false)} className="w-72 max-w-full" />
          </DialogPrimitive.Content>
        </DialogPrimitive.Portal>
      </DialogPrimitive.Root>
      <NavBrand className="flex-1" />
      <UserMenu user={user} compact side="bottom" />
    </header>
  );
}
