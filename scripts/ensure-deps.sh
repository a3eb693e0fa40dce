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
  # "up to date" leaves the marker untouched; touch it so the next start does not install again.
  touch node_modules/.package-lock.json
fi
# End-to-end tests drive Debian's programs: chromium-headless-shell (Debian's headless Chromium build;
# browser downloads are impossible here),
# skopeo (a real OCI registry client), docker-registry (Docker distribution 2.8, an external
# registry that trusts this service's tokens), python3-gitlab (a GitLab client from another ecosystem;
# Debian's /usr/bin/python3 imports it, whatever python3 comes first on PATH), git-credential-oauth,
# oidc-agent-cli (the command-line OAuth clients of docs/clients.md) and openssh-client (ssh-keygen makes
# the SSH keys a personal access token's DPoP proofs are signed with).
if [ "${1:-}" = "--browser" ]; then
  missing=""
  command -v chromium-headless-shell >/dev/null 2>&1 || missing="$missing chromium-headless-shell"
  command -v skopeo >/dev/null 2>&1 || missing="$missing skopeo"
  command -v docker-registry >/dev/null 2>&1 || missing="$missing docker-registry"
  /usr/bin/python3 -c "import gitlab" >/dev/null 2>&1 || missing="$missing python3-gitlab"
  command -v git-credential-oauth >/dev/null 2>&1 || missing="$missing git-credential-oauth"
  command -v oidc-agent >/dev/null 2>&1 || missing="$missing oidc-agent-cli"
  command -v ssh-keygen >/dev/null 2>&1 || missing="$missing openssh-client"
  if [ -n "$missing" ]; then
    if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
      echo "› installing Debian's$missing for the end-to-end tests"
      apt-get -o DPkg::Lock::Timeout=600 update -qq
      DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq $missing >/dev/null
    else
      echo "missing Debian packages:$missing (the end-to-end tests need them)" >&2
      exit 1
    fi
  fi
fi
