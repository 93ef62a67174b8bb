# The example app on the current Node LTS. docker compose builds it; alone:
#   docker build -t nest-agent-memory .
# The build stage compiles the app and its web page with every dev tool; the runtime stage holds
# only what `node dist/main.js` loads (scripts/app-runtime-manifest.mjs), runs as the unprivileged
# `node` user and keeps its SQLite files in /app/data.
FROM node:24-bookworm-slim AS build
WORKDIR /app
# No compiler: every native module here comes prebuilt for linux x64 and arm64. Python 3 and make
# stay because `npm ci` runs better-sqlite3's node-gyp step (npm drops its `gypfile: false` from
# the lock file, npm/cli#3341); with its prebuilt binary present, that step builds nothing.
RUN apt-get update && apt-get install -y --no-install-recommends python3 make \
  && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json tsconfig.web.json ./
COPY scripts ./scripts
COPY src ./src
COPY web ./web
RUN npm run build \
  && node scripts/app-runtime-manifest.mjs /runtime \
  && cd /runtime && npm install --omit=dev --no-audit --no-fund

FROM node:24-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production HOST=0.0.0.0 SQLITE_PATH=/app/data/agent-memory.sqlite
COPY --from=build --chown=node:node /runtime/package.json ./package.json
COPY --from=build --chown=node:node /runtime/node_modules ./node_modules
COPY --from=build --chown=node:node /app/dist ./dist
RUN mkdir -p /app/data && chown node:node /app/data
USER node
EXPOSE 3000
CMD ["node", "dist/main.js"]
