#!/usr/bin/env bash
# Installs what the console's end-to-end test drives: Chromium (the Debian package, at
# /usr/bin/chromium) and playwright-core, pinned, into target/console-e2e/. Idempotent. The
# test in tests/it/console_e2e.rs looks for this folder (or CONSOLE_E2E_DIR).
set -euo pipefail
cd "$(dirname "$0")/.."

PLAYWRIGHT_VERSION="1.65.1"
dir="${CONSOLE_E2E_DIR:-$PWD/target/console-e2e}"
stamp="$dir/.installed"
want="playwright-core@$PLAYWRIGHT_VERSION"

if [ ! -x /usr/bin/chromium ]; then
  if command -v apt-get >/dev/null 2>&1; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  else
    echo "chromium is missing and there is no apt-get to install it" >&2
    exit 1
  fi
fi
/usr/bin/chromium --version

if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && [ -d "$dir/node_modules/playwright-core" ]; then
  echo "playwright-core already installed in $dir"
else
  if ! command -v npm >/dev/null 2>&1; then
    echo "npm is missing: playwright-core is installed with npm (Node.js)" >&2
    exit 1
  fi
  mkdir -p "$dir"
  if [ ! -f "$dir/package.json" ]; then
    printf '{ "name": "toolwright-console-e2e", "private": true }\n' >"$dir/package.json"
  fi
  npm install --prefix "$dir" --no-audit --no-fund --save-exact --loglevel=error "$want"
  echo "$want" >"$stamp"
fi
echo "playwright-core $PLAYWRIGHT_VERSION in $dir"
