# syntax=docker/dockerfile:1
# Small non-root image running the same start as `npm start` (README, Operations). Node: the current LTS, 26
# ("Lithium", Active LTS since 2026-10-28; its images are Debian 13 "trixie"). The code also runs on
# Node 20.19+: `--build-arg NODE_IMAGE=node:24-bookworm-slim` pins an older line.
ARG NODE_IMAGE=node:26-trixie-slim

# Production dependencies only; sqlite3 is a native module, so the toolchain lives in this stage.
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund

# TypeScript build.
FROM deps AS build
RUN npm ci --no-audit --no-fund
COPY tsconfig.json ./
COPY scripts/build.mjs ./scripts/
COPY src ./src
# The incremental build's state is of no use in the image.
RUN npm run build && rm dist/.tsbuildinfo

FROM ${NODE_IMAGE}
# MALLOC_*: glibc's allocator keeps what worker threads free in per-thread arenas, and blocks under a
# threshold it raises as large buffers are freed; both give memory back this way (decision 0017).
ENV NODE_ENV=production \
    TZ=UTC \
    MALLOC_ARENA_MAX=2 \
    MALLOC_MMAP_THRESHOLD_=131072 \
    HOST=0.0.0.0 \
    PORT=3000 \
    STORE_URL=sqlite:///data/catalog.sqlite
WORKDIR /app
COPY --chown=node:node package.json ./
COPY --from=deps --chown=node:node /app/node_modules ./node_modules
COPY --from=build --chown=node:node /app/dist ./dist
COPY --chown=node:node templates ./templates
# The documentation the bridge serves at /docs (the status page links report codes there).
COPY --chown=node:node docs ./docs
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "--enable-source-maps", "dist/main.js"]
