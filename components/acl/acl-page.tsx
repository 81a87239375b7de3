"use client";

import { useState } from "react";
import Link from "next/link";
import { useTranslations } from "next-intl";
import { Plus } from "lucide-react";
import { Button } from "@/components/ui/button";
import { PageHeader } from "@/components/ui/page-header";
import { SearchInput } from "@/components/ui/search-input";
import { Tabs, TabsContent, TabsList, TabsTrigger } from "@/components/ui/tabs";
import { useUrlState } from "@/components/users/url-state";
import { AliasesTab } from "./aliases-tab";
import { CheckAccess } from "./check-access";
import { useAclContext } from "./context";
import { RulesTab } from "./rules-tab";

type Tab = "rules" | "aliases";

/** Access Control: Rules and Aliases tabs (each: pending changes, then what is deployed) and the access check. */
export function AclPage() {
  const t = useTranslations("acl");
  const ctx = useAclContext();
  const { params, set } = useUrlState();
  const [tab, setTabState] = useState<Tab>(() => (params.get("tab") === "aliases" ? "aliases" : "rules"));
  const [filter, setFilterText] = useState(() => params.get("q") ?? "");
  const [creatingAlias, setCreatingAlias] = useState(false);
  const setTab = (v: Tab) => {
    setTabState(v);
    set({ tab: v === "rules" ? null : v });
  };
  const setFilter = (v: string) => {
    setFilterText(v);
    set({ q: v.trim() || null });
  };

  return (
    <>
      <PageHeader
        title={t("title")}
        description={t("description")}
        action={
          tab === "rules" ? (
            <Button asChild data-testid="add-rule">
              <Link href="/acl/rules/new">
                <Plus aria-hidden />
                {t("rules.add")}
              </Link>
            </Button>
          ) : (
            <Button data-testid="add-alias" onClick={() => setCreatingAlias(true)}>
              <Plus aria-hidden />
              {t("aliases.add")}
            </Button>
          )
        }
      />
      <Tabs value={tab} onValueChange={(v) => setTab(v as Tab)}>
        <div className="flex flex-wrap items-end justify-between gap-x-6 gap-y-3 border-b border-border">
          <TabsList className="border-b-0">
            <TabsTrigger value="rules" data-testid="acl-tab-rules">
              {t("tabs.rules")}
            </TabsTrigger>
            <TabsTrigger value="aliases" data-testid="acl-tab-aliases">
              {t("tabs.aliases")}
            </TabsTrigger>
          </TabsList>
          <SearchInput
            className="mb-2 w-full sm:w-72"
            aria-label={tab === "rules" ? t("rules.search") : t("aliases.search")}
            placeholder={tab === "rules" ? t("rules.search") : t("aliases.search")}
            value={filter}
            onValueChange={setFilter}
            clearLabel={t("clearSearch")}
            data-testid="acl-search"
          />
        </div>
        <TabsContent value="rules" className="pt-6">
          <RulesTab ctx={ctx} filter={filter} onClearFilter={() => setFilter("")} />
        </TabsContent>
        <TabsContent value="aliases" className="pt-6">
          <AliasesTab filter={filter} onClearFilter={() => setFilter("")} creating={creatingAlias} onCreatingChange={setCreatingAlias} />
        </TabsContent>
      </Tabs>
      <div className="mt-8">
        <CheckAccess ctx={ctx} />
      </div>
    </>
  );
}
