"use client";

import type { ReactNode } from "react";
import { useTranslations } from "next-intl";
import { Container, Server, SquareTerminal } from "lucide-react";
import { CodeBlock, type CodeBlockLabels } from "@/components/ui/code-block";
import { Tabs, TabsContent, TabsList, TabsTrigger } from "@/components/ui/tabs";

/** The docker image of defguard's own gateway: only ever printed, never fetched by the console. */
export const DEFGUARD_GATEWAY_IMAGE = "ghcr.io/defguard/gateway:latest";
export const AGENT_ENV_FILE = "gateway.env";

export interface GatewaySetupValues {
  token: string;
  grpcUrl: string;
}

/** The env file of this console's own agent (gateway/config.ts reads these). */
export function agentEnv({ token, grpcUrl }: GatewaySetupValues): string {
  return [
    `DEFGUARD_TOKEN=${token}`,
    `DEFGUARD_GRPC_URL=${grpcUrl}`,
    "DEFGUARD_IFNAME=wg0",
    "DEFGUARD_USERSPACE=0",
    "DEFGUARD_STATS_PERIOD=30",
    "HEALTH_PORT=55003",
    "",
  ].join("\n");
}

/**
 * The agent with the env file: Node reads it before the agent starts (node >= 20.6).
 * scripts/start.mjs compiles dist/gateway.js when it is missing or stale and runs it in the same
 * process, so no TypeScript loader runs beside the agent.
 */
export function agentCommand(): string {
  return [
    "# From the console's source directory, as root (WireGuard and nftables need it):",
    `node --env-file=${AGENT_ENV_FILE} scripts/start.mjs gateway`,
    "",
    "# or, the same through npm:",
    `set -a && . ./${AGENT_ENV_FILE} && set +a && npm run gateway`,
    "",
  ].join("\n");
}

export function dockerCommand({ token, grpcUrl }: GatewaySetupValues): string {
  return [
    "docker run -d --name defguard-gateway --restart unless-stopped \\",
    `  -e DEFGUARD_TOKEN=${token} \\`,
    `  -e DEFGUARD_GRPC_URL=${grpcUrl} \\`,
    "  --cap-add NET_ADMIN --network host \\",
    `  ${DEFGUARD_GATEWAY_IMAGE}`,
    "",
  ].join("\n");
}

export function systemdEnv({ token, grpcUrl }: GatewaySetupValues): string {
  return [
    "# /etc/defguard/gateway.env",
    `DEFGUARD_TOKEN=${token}`,
    `DEFGUARD_GRPC_URL=${grpcUrl}`,
    "DEFGUARD_IFNAME=wg0",
    "DEFGUARD_STATS_PERIOD=30",
    "",
  ].join("\n");
}

const SYSTEMD_COMMAND = "sudo systemctl enable --now defguard-gateway\nsudo systemctl restart defguard-gateway\n";

function Step({ n, title, children }: { n: number; title: string; children: ReactNode }) {
  return (
    <li className="flex gap-3">
      <span
        aria-hidden
        className="mt-0.5 flex size-5 shrink-0 items-center justify-center rounded-full bg-accent-subtle text-[11px] font-semibold text-accent"
      >
        {n}
      </span>
      <div className="flex min-w-0 flex-1 flex-col gap-2">
        <p className="text-sm text-fg">{title}</p>
        {children}
      </div>
    </li>
  );
}

/** Ready-to-paste ways to run a gateway for one location: our agent, defguard's in Docker or as a service. */
export function GatewayInstructions({ values, labels }: { values: GatewaySetupValues; labels: CodeBlockLabels }) {
  const t = useTranslations("gateways.setup");
  return (
    <Tabs defaultValue="agent">
      <TabsList aria-label={t("howLabel")}>
        <TabsTrigger value="agent" data-testid="gateway-tab-agent">
          <span className="inline-flex items-center gap-1.5">
            <SquareTerminal className="size-4" aria-hidden />
            {t("tabs.agent")}
          </span>
        </TabsTrigger>
        <TabsTrigger value="docker" data-testid="gateway-tab-docker">
          <span className="inline-flex items-center gap-1.5">
            <Container className="size-4" aria-hidden />
            {t("tabs.docker")}
          </span>
        </TabsTrigger>
        <TabsTrigger value="systemd" data-testid="gateway-tab-systemd">
          <span className="inline-flex items-center gap-1.5">
            <Server className="size-4" aria-hidden />
            {t("tabs.systemd")}
          </span>
        </TabsTrigger>
      </TabsList>

      <TabsContent value="agent">
        <p className="mb-4 text-sm text-fg-muted">{t("agent.intro")}</p>
        <ol className="flex flex-col gap-4">
          <Step n={1} title={t("agent.envStep", { file: AGENT_ENV_FILE })}>
            <CodeBlock code={agentEnv(values)} filename={AGENT_ENV_FILE} labels={labels} data-testid="gateway-agent-env" />
          </Step>
          <Step n={2} title={t("agent.runStep")}>
            <CodeBlock code={agentCommand()} label={t("agent.runLabel")} labels={labels} data-testid="gateway-agent-command" />
          </Step>
        </ol>
        <p className="mt-4 text-xs text-fg-muted">{t("agent.notes")}</p>
      </TabsContent>

      <TabsContent value="docker">
        <p className="mb-4 text-sm text-fg-muted">{t("docker.intro")}</p>
        <CodeBlock code={dockerCommand(values)} label={t("docker.label")} labels={labels} data-testid="gateway-docker-command" />
        <p className="mt-4 text-xs text-fg-muted">{t("docker.notes")}</p>
      </TabsContent>

      <TabsContent value="systemd">
        <p className="mb-4 text-sm text-fg-muted">{t("systemd.intro")}</p>
        <ol className="flex flex-col gap-4">
          <Step n={1} title={t("systemd.envStep")}>
            <CodeBlock code={systemdEnv(values)} filename="gateway.env" labels={labels} data-testid="gateway-systemd-env" />
          </Step>
          <Step n={2} title={t("systemd.runStep")}>
            <CodeBlock code={SYSTEMD_COMMAND} label={t("systemd.runLabel")} labels={labels} data-testid="gateway-systemd-command" />
          </Step>
        </ol>
      </TabsContent>
    </Tabs>
  );
}
