#!/bin/sh
# Installs what a fresh clone is missing, so `npm start` and `npm test` need nothing else.
# Runs under any Node (the project's own Node 22 from the `node` devDependency takes over after).
set -e
cd "$(dirname "$0")/.."
if [ ! -x node_modules/.bin/wrangler ] || [ ! -x node_modules/.bin/node ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "› installing npm dependencies (npm ci)"
  npm ci --no-audit --no-fund
fi
# Browser tests drive Debian's chromium (browser downloads are impossible here).
if [ "${1:-}" = "--browser" ] && ! command -v chromium >/dev/null 2>&1; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "› installing Debian's chromium for the browser tests"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  else
    echo "chromium is missing: install Debian's 'chromium' package (the browser tests need it)" >&2
    exit 1
  fi
fi
