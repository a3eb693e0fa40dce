#!/bin/sh
# Installs what a fresh clone is missing, so `npm start` and `npm test` need nothing else.
# Runs under any Node (the project's own Node 22 from the `node` devDependency takes over after).
set -e
cd "$(dirname "$0")/.."
if [ ! -x node_modules/.bin/wrangler ] || [ ! -x node_modules/.bin/node ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  # Not `npm ci`: the lock lacks workerd's other-platform packages (the registry here does not list
  # them for every version) and npm ci refuses such a lock; npm install keeps to the lock otherwise.
  echo "› installing npm dependencies"
  npm install --no-audit --no-fund --loglevel=error
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
