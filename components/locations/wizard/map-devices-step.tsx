"use client";

import { useState } from "react";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useTranslations } from "next-intl";
import { AlertCircle, Trash2 } from "lucide-react";
import { ApiBadRequestError, api } from "@/lib/api/client";
import { bareMessage, useApiErrorText } from "@/components/devices/errors";
import { Button } from "@/components/ui/button";
import { Card, CardHeader } from "@/components/ui/card";
import { cn } from "@/components/ui/cn";
import { Input } from "@/components/ui/input";
import { toast } from "@/components/ui/toaster";
import { Tooltip } from "@/components/ui/tooltip";
import type { ImportedPeer, Location } from "../api";
import { UserPicker, type PickedUser } from "./user-picker";

interface Row {
  key: string;
  name: string;
  wireguard_pubkey: string;
  ips: string;
  user: PickedUser | null;
}

type RowField = "name" | "wireguard_ips" | "user_id" | "wireguard_pubkey";
type RowErrors = Partial<Record<RowField, true>>;

/** "fill in marked fields" for missing input, "invalid address" for addresses the server refused. */
type Problem = "fillMarked" | "invalidAddress" | "keyInvalid" | null;

const splitIps = (s: string) =>
  s
    .split(",")
    .map((x) => x.trim())
    .filter(Boolean);

const GRID = "md:grid-cols-[minmax(0,1fr)_minmax(0,0.9fr)_minmax(0,1fr)_minmax(0,1.2fr)_2rem]";

interface MapDevicesStepProps {
  location: Location;
  peers: ImportedPeer[];
  onDone: (count: number) => void;
}

/** Map imported peers to users: name and addresses editable, a user for each (POST /network/{id}/devices). */
export function MapDevicesStep({ location, peers, onDone }: MapDevicesStepProps) {
  const t = useTranslations("wizard.map");
  const errorText = useApiErrorText();
  const queryClient = useQueryClient();
  const [rows, setRows] = useState<Row[]>(() =>
    peers.map((p) => ({ key: p.wireguard_pubkey, name: p.name, wireguard_pubkey: p.wireguard_pubkey, ips: p.wireguard_ips.join(", "), user: null })),
  );
  const [errors, setErrors] = useState<Record<string, RowErrors>>({});
  const [problem, setProblem] = useState<Problem>(null);
  const [serverDetail, setServerDetail] = useState<string | null>(null);

  function update(key: string, patch: Partial<Row>, clear: RowField) {
    setRows((rs) => rs.map((r) => (r.key === key ? { ...r, ...patch } : r)));
    setErrors((es) => ({ ...es, [key]: { ...es[key], [clear]: undefined } }));
  }

  const save = useMutation({
    mutationFn: (list: Row[]) =>
      api.post(`/network/${location.id}/devices`, {
        devices: list.map((r) => ({
          name: r.name.trim(),
          wireguard_pubkey: r.wireguard_pubkey,
          user_id: r.user!.id,
          wireguard_ips: splitIps(r.ips),
        })),
      }),
    onSuccess: (_, list) => {
      toast.success(t("saved", { count: list.length }));
      void queryClient.invalidateQueries({ queryKey: ["devices"] });
      void queryClient.invalidateQueries({ queryKey: ["user"] });
      onDone(list.length);
    },
    onError: (err, list) => {
      const m = err instanceof ApiBadRequestError ? /^devices\.(\d+)\.(\w+)$/.exec(err.field ?? "") : null;
      if (m) {
        const row = list[Number(m[1])];
        const field = (m[2] === "wireguard_ips" || m[2] === "user_id" || m[2] === "name" || m[2] === "wireguard_pubkey" ? m[2] : "name") as RowField;
        if (row) setErrors((es) => ({ ...es, [row.key]: { ...es[row.key], [field]: true } }));
        const bare = bareMessage(err as ApiBadRequestError);
        const p = bare.startsWith("invalid address") ? "invalidAddress" : bare.startsWith("key is invalid") ? "keyInvalid" : "fillMarked";
        setProblem(p);
        setServerDetail(null);
        toast.error(t("failed"), { subMessage: t("rowProblem", { index: Number(m[1]) + 1, problem: t(`problems.${p}`) }) });
      } else {
        setProblem(null);
        setServerDetail(errorText(err));
        toast.error(t("failed"), { subMessage: errorText(err) });
      }
    },
  });

  function submit() {
    if (save.isPending) return;
    if (rows.length === 0) return onDone(0);
    const found: Record<string, RowErrors> = {};
    for (const r of rows) {
      const e: RowErrors = {};
      if (!r.name.trim()) e.name = true;
      if (splitIps(r.ips).length === 0) e.wireguard_ips = true;
      if (!r.user) e.user_id = true;
      if (Object.keys(e).length) found[r.key] = e;
    }
    setErrors(found);
    setServerDetail(null);
    if (Object.keys(found).length) {
      setProblem("fillMarked");
      return;
    }
    setProblem(null);
    save.mutate(rows);
  }

  const mapped = rows.filter((r) => r.user).length;
  return (
    <div className="flex flex-col gap-4">
      <Card>
        <CardHeader
          title={t("title", { location: location.name })}
          description={t("description")}
          action={<span className="text-xs text-fg-muted tabular-nums">{t("progress", { mapped, total: rows.length })}</span>}
        />
        {(problem || serverDetail) && (
          <div role="alert" data-testid="map-error" className="mx-4 mt-4 flex items-start gap-2 rounded-md border border-error/30 bg-error-subtle px-3 py-2 text-sm">
            <AlertCircle className="mt-0.5 size-4 shrink-0 text-error" aria-hidden />
            <span className="font-medium text-fg first-letter:uppercase">{problem ? t(`problems.${problem}`) : serverDetail}</span>
          </div>
        )}
        {rows.length === 0 ? (
          <p className="px-4 py-8 text-center text-sm text-fg-muted">{t("allRemoved")}</p>
        ) : (
          <div className="p-4">
            <div className={cn("hidden gap-3 px-1 pb-2 text-xs font-medium text-fg-muted md:grid", GRID)} aria-hidden>
              <span>{t("name")}</span>
              <span>{t("publicKey")}</span>
              <span>{t("ips")}</span>
              <span>{t("user.label")}</span>
              <span />
            </div>
            <ul className="flex flex-col gap-3 md:gap-2">
              {rows.map((r, i) => {
                const e = errors[r.key] ?? {};
                return (
                  <li
                    key={r.key}
                    data-testid="map-row"
                    data-invalid={Object.values(e).some(Boolean) || undefined}
                    className={cn(
                      "grid grid-cols-1 items-center gap-2 rounded-md border p-3 md:gap-3 md:border-0 md:p-1",
                      GRID,
                      Object.values(e).some(Boolean) ? "border-error/40 bg-error-subtle/40 md:bg-error-subtle/30" : "border-border",
                    )}
                  >
                    <Input
                      aria-label={t("nameOf", { index: i + 1 })}
                      aria-invalid={e.name || undefined}
                      value={r.name}
                      onChange={(ev) => update(r.key, { name: ev.target.value }, "name")}
                      data-testid="map-name"
                    />
                    <Tooltip content={<span className="break-all font-mono">{r.wireguard_pubkey}</span>}>
                      <span
                        tabIndex={0}
                        aria-label={t("keyOf", { index: i + 1, key: r.wireguard_pubkey })}
                        className={cn(
                          "truncate rounded-sm font-mono text-xs text-fg-muted focus-visible:outline-2",
                          e.wireguard_pubkey && "text-error",
                        )}
                      >
                        {r.wireguard_pubkey}
                      </span>
                    </Tooltip>
                    <Input
                      aria-label={t("ipsOf", { index: i + 1 })}
                      aria-invalid={e.wireguard_ips || undefined}
                      className="font-mono text-xs"
                      spellCheck={false}
                      value={r.ips}
                      onChange={(ev) => update(r.key, { ips: ev.target.value }, "wireguard_ips")}
                      data-testid="map-ips"
                    />
                    <UserPicker
                      aria-label={t("userOf", { index: i + 1 })}
                      value={r.user}
                      invalid={e.user_id}
                      onChange={(user) => update(r.key, { user }, "user_id")}
                      data-testid="map-user"
                    />
                    <Tooltip content={t("remove")}>
                      <Button
                        variant="ghost"
                        size="icon"
                        aria-label={t("removeOf", { index: i + 1 })}
                        onClick={() => setRows((rs) => rs.filter((x) => x.key !== r.key))}
                        className="justify-self-end"
                      >
                        <Trash2 aria-hidden />
                      </Button>
                    </Tooltip>
                  </li>
                );
              })}
            </ul>
          </div>
        )}
      </Card>
      <div className="flex justify-end gap-2">
        <Button onClick={submit} loading={save.isPending} data-testid="map-submit">
          {rows.length === 0 ? t("finish") : t("submit", { count: rows.length })}
        </Button>
      </div>
    </div>
  );
}
