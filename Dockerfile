# syntax=docker/dockerfile:1
# One image for the three processes (api, chain-worker, dispatcher), the
# migration runner and the ops CLI; the command decides which one runs. It
# holds the compiled JavaScript and the production dependencies only: the
# sandbox's tooling (embedded PostgreSQL, tsx) is a dev dependency.
#   docker build -t wallet-service .
#   docker run --env-file .env wallet-service                                      # api
#   docker run --env-file .env wallet-service node dist/src/bootstrap/dispatcher.js

ARG NODE_IMAGE=node:20-slim

# Compiles TypeScript to plain JavaScript in dist/ (needs the dev dependencies).
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
RUN npm ci
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY migrations ./migrations
RUN npm run build

# Runtime dependencies only, from the same lockfile. Optional dependencies are
# kept on purpose: platform binaries ship as optional packages.
FROM ${NODE_IMAGE} AS prod-deps
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
RUN npm ci --omit=dev

FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production
WORKDIR /app
# package.json carries "type": "module", which makes Node load dist/ as ESM.
COPY package.json ./
COPY --from=prod-deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# The docs site (/docs) renders docs/*.md at runtime, found beside package.json.
COPY docs ./docs
# Nothing is written to disk in production: secrets come from the environment
# and the data lives in PostgreSQL, so the process runs unprivileged.
USER node
# api on PORT (8080: /v2 and /healthz) and its admin port PORT+3 (8083:
# /readyz, /metrics); chain-worker and dispatcher probes on PORT+1 and PORT+2.
EXPOSE 8080 8081 8082 8083
# Node itself is PID 1 (not npm), so SIGTERM reaches the process's handler and
# it stops gracefully within 10 s.
CMD ["node", "dist/src/bootstrap/api.js"]
