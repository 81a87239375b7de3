# syntax=docker/dockerfile:1
# Console image (target "console", the default) and the gateway agent (target "gateway").
# See README "Docker Compose". Build: docker build -t defguard-console .

# --- build: all dependencies, next build, server.ts and the agent compiled to JavaScript --
FROM node:20-bookworm-slim AS build
WORKDIR /app
ENV NEXT_TELEMETRY_DISABLED=1
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npx next build && node scripts/build-server.mjs

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
COPY package.json ./
COPY proto ./proto

# --- the gateway agent: root with NET_ADMIN and /dev/net/tun (compose profile "gateway") --
FROM base AS gateway
RUN apt-get update && apt-get install -y --no-install-recommends iproute2 wireguard-tools nftables \
    && rm -rf /var/lib/apt/lists/*
# gateway/index.ts compiled (scripts/build-server.mjs): plain node, no TypeScript loader.
COPY --from=build /app/dist/gateway.js /app/dist/gateway.js.map ./dist/
CMD ["node", "dist/gateway.js"]

# --- the console: non-root, data in /var/lib/defguard ------------------------------------
FROM base AS console
ENV PORT=8000 DEFGUARD_GRPC_PORT=50055 DEFGUARD_DATA_DIR=/var/lib/defguard
RUN groupadd --system defguard \
    && useradd --system --gid defguard --home-dir /var/lib/defguard --shell /usr/sbin/nologin defguard \
    && mkdir -p /var/lib/defguard && chown defguard:defguard /var/lib/defguard
COPY --from=build /app/.next ./.next
COPY --from=build /app/public ./public
COPY --from=build /app/dist/server.js /app/dist/server.js.map ./dist/
COPY --from=build /app/dist/server-chunks ./dist/server-chunks
COPY next.config.ts tsconfig.json ./
COPY drizzle ./drizzle
COPY messages ./messages
USER defguard
EXPOSE 8000 50055
VOLUME ["/var/lib/defguard"]
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||8000)+'/api/v1/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# One process running compiled JavaScript (server.ts and lib/, scripts/build-server.mjs): no
# TypeScript loader, no npm parent; signals (SIGTERM on docker stop) reach the server itself.
CMD ["node", "dist/server.js"]
