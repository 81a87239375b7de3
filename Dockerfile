# syntax=docker/dockerfile:1
# Console image (target "console", the default) and the gateway agent (target "gateway").
# See README "Docker Compose". Build: docker build -t defguard-console .

# --- build: all dependencies, next build -----------------------------------------------
FROM node:20-bookworm-slim AS build
WORKDIR /app
ENV NEXT_TELEMETRY_DISABLED=1
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npx next build

# --- production dependencies only ------------------------------------------------------
FROM node:20-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

# --- what both run-time images share ---------------------------------------------------
FROM node:20-bookworm-slim AS base
WORKDIR /app
ENV NODE_ENV=production NEXT_TELEMETRY_DISABLED=1
COPY --from=deps /app/node_modules ./node_modules
COPY package.json tsconfig.json ./
COPY lib ./lib
COPY proto ./proto
COPY types ./types
# Resolves `import "server-only"` outside Next.js (server.ts and the agent run under tsx).
COPY scripts/server-only-hook.mjs ./scripts/server-only-hook.mjs

# --- the gateway agent: root with NET_ADMIN and /dev/net/tun (compose profile "gateway") --
FROM base AS gateway
RUN apt-get update && apt-get install -y --no-install-recommends iproute2 wireguard-tools nftables \
    && rm -rf /var/lib/apt/lists/*
COPY gateway ./gateway
CMD ["node", "--import", "./scripts/server-only-hook.mjs", "--import", "tsx", "gateway/index.ts"]

# --- the console: non-root, data in /var/lib/defguard ------------------------------------
FROM base AS console
ENV PORT=8000 DEFGUARD_GRPC_PORT=50055 DEFGUARD_DATA_DIR=/var/lib/defguard
RUN groupadd --system defguard \
    && useradd --system --gid defguard --home-dir /var/lib/defguard --shell /usr/sbin/nologin defguard \
    && mkdir -p /var/lib/defguard && chown defguard:defguard /var/lib/defguard
COPY --from=build /app/.next ./.next
COPY --from=build /app/public ./public
COPY server.ts next.config.ts ./
COPY drizzle ./drizzle
COPY messages ./messages
USER defguard
EXPOSE 8000 50055
VOLUME ["/var/lib/defguard"]
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||8000)+'/api/v1/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# One process: signals (SIGTERM on docker stop) reach the server itself.
CMD ["node", "--import", "./scripts/server-only-hook.mjs", "--import", "tsx", "server.ts"]
