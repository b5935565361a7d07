#!/usr/bin/env bash
# Idempotent setup for a fresh clone (used by `npm test`, `npm run demo`, .ci/run):
#   0. Node 24 (and Node 22, for the ABI test) from the npm registry when the machine's Node is
#      not 24 (scripts/node-runtime.sh; .cache/node/<version>); every step below runs with it
#   1. system packages: libkrb5-dev ripgrep chromium, PostgreSQL 15 (apt, root, non-interactive)
#   2. node_modules: `npm ci` (with that Node) when missing or out of date with package-lock.json
#   3. code-server 4.139.1 (VS Code 1.139.1, Node 24) in .cache/code-server/4.139.1, started through
#      a launcher (bin/code-server) that names the Node runtime explicitly
#   4. pgvector built from the vendored source for the team-memory tests (scripts/postgres-setup.sh)
# Fast (< 2 s) when everything is already in place. Offline-safe: only apt + npm. A first
# install compiles code-server's native modules for that Node: several minutes on 2 cores.
#
# Usage: bash scripts/bootstrap.sh            (all steps)
#        AGENT_MEMORY_CACHE=/some/dir bash scripts/bootstrap.sh
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE="${AGENT_MEMORY_CACHE:-$ROOT/.cache}"
CODE_SERVER_VERSION="4.139.1"
# shellcheck source=scripts/node-runtime.sh
source "$ROOT/scripts/node-runtime.sh"
CS_HOME="$CACHE/code-server/$CODE_SERVER_VERSION"
APT_PACKAGES=(libkrb5-dev ripgrep chromium bubblewrap postgresql-15 postgresql-server-dev-15 build-essential)

say() { printf '[bootstrap] %s\n' "$*"; }
die() { printf '[bootstrap] ERROR: %s\n' "$*" >&2; exit 1; }

# ---------------------------------------------------------------- 1. apt
missing_apt() {
  local p
  for p in "${APT_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || printf '%s ' "$p"
  done
}

ensure_apt() {
  local missing
  missing="$(missing_apt)"
  [[ -z "$missing" ]] && return 0
  say "installing system packages: $missing"
  local sudo=()
  if [[ "$(id -u)" != 0 ]]; then
    command -v sudo >/dev/null || die "need root (or sudo) to install: $missing"
    sudo=(sudo -n)
  fi
  export DEBIAN_FRONTEND=noninteractive
  # apt-get update only when there are no package lists yet, or when install fails.
  if ! compgen -G '/var/lib/apt/lists/*_Packages' >/dev/null; then
    "${sudo[@]}" apt-get update -q >/dev/null || die "apt-get update failed"
  fi
  # shellcheck disable=SC2086
  if ! "${sudo[@]}" apt-get install -y -q --no-install-recommends $missing >/dev/null; then
    say "apt-get install failed; refreshing package lists and retrying"
    "${sudo[@]}" apt-get update -q >/dev/null || die "apt-get update failed"
    # shellcheck disable=SC2086
    "${sudo[@]}" apt-get install -y -q --no-install-recommends $missing >/dev/null \
      || die "apt-get install $missing failed"
  fi
  [[ -z "$(missing_apt)" ]] || die "still missing after apt-get: $(missing_apt)"
}

# ---------------------------------------------------------------- 2. npm ci
# The stamp names the Node major too: a tree installed by another Node is re-installed.
lock_hash() { printf '%s node%s' "$(sha256sum "$ROOT/package-lock.json" | cut -d' ' -f1)" "$(node -p 'process.versions.node.split(".")[0]')"; }

ensure_node_modules() {
  local stamp="$ROOT/node_modules/.agent-memory-lock.sha256" want
  want="$(lock_hash)"
  if [[ -d "$ROOT/node_modules" && -f "$stamp" && "$(cat "$stamp")" == "$want" ]]; then
    return 0
  fi
  if [[ -d "$ROOT/node_modules" ]]; then
    # Stamp missing or different: adopt the tree if npm says it matches (never wipe a
    # working tree colleagues are using just because the stamp is new).
    if (cd "$ROOT" && npm ls --all >/dev/null 2>&1); then
      printf '%s\n' "$want" >"$stamp"
      say "node_modules matches package-lock.json (stamp written)"
      return 0
    fi
    say "node_modules out of date with package-lock.json: npm ci"
  else
    say "node_modules missing: npm ci"
  fi
  (cd "$ROOT" && npm ci --no-audit --no-fund) || die "npm ci failed (see output above)"
  printf '%s\n' "$want" >"$stamp"
}

# ---------------------------------------------------------------- 3. code-server
ensure_code_server() {
  local done_stamp="$CS_HOME/.installed"
  if [[ -f "$done_stamp" && -x "$CS_HOME/node_modules/.bin/code-server" ]]; then
    write_launcher
    return 0
  fi
  local t0=$SECONDS
  say "installing code-server $CODE_SERVER_VERSION into ${CS_HOME#"$ROOT"/} with Node $(node -v) (compiles native modules: minutes)"
  local stage="$CS_HOME.partial"
  rm -rf "$stage"
  mkdir -p "$stage"
  export npm_config_audit=false npm_config_fund=false npm_config_update_notifier=false
  local log="$stage/install.log"
  run() { "$@" >>"$log" 2>&1 || { tail -n 40 "$log" >&2; die "failed: $* (log: $log)"; }; }

  printf '{"name":"code-server-cache","private":true}\n' >"$stage/package.json"
  say "  npm install code-server@$CODE_SERVER_VERSION --ignore-scripts"
  (cd "$stage" && run npm install --no-save --ignore-scripts "code-server@$CODE_SERVER_VERSION")
  say "  npm rebuild argon2"
  (cd "$stage" && run npm rebuild argon2)

  local vs="$stage/node_modules/code-server/lib/vscode"
  [[ -d "$vs" ]] || die "unexpected code-server layout: $vs missing"
  say "  lib/vscode: npm install --omit=dev --ignore-scripts"
  (cd "$vs" && run npm install --omit=dev --ignore-scripts)
  local rg; rg="$(command -v rg)" || die "ripgrep (rg) not found; apt-get install ripgrep"
  mkdir -p "$vs/node_modules/@vscode/ripgrep/bin"
  ln -sfn "$rg" "$vs/node_modules/@vscode/ripgrep/bin/rg"
  say "  lib/vscode: npm rebuild (native modules)"
  (cd "$vs" && npm_config_yes=true run npm rebuild)
  ln -sfn node_modules "$vs/node_modules.asar"
  (cd "$vs/bin/remote-cli" && ln -sfn code-linux.sh code-server)
  (cd "$vs/bin/helpers" && [[ -e browser.sh ]] || ln -sfn browser-linux.sh browser.sh)
  say "  lib/vscode/extensions: npm install --omit=dev"
  (cd "$vs/extensions" && run npm install --omit=dev)

  # Sanity check before publishing the install.
  local version
  version="$(XDG_CONFIG_HOME="$stage/xdg" XDG_DATA_HOME="$stage/xdg" \
    "$stage/node_modules/.bin/code-server" --version 2>>"$log" | grep -Eo '^[0-9]+\.[0-9]+\.[0-9]+' | head -n1)" || true
  [[ "$version" == "$CODE_SERVER_VERSION" ]] || { tail -n 20 "$log" >&2; die "code-server --version printed '$version'"; }
  rm -rf "$stage/xdg"

  rm -rf "$CS_HOME"
  mv "$stage" "$CS_HOME"
  # npm's .bin links are relative, so they survive the move; re-link to be sure.
  ln -sfn ../code-server/out/node/entry.js "$CS_HOME/node_modules/.bin/code-server"
  date -u +%FT%TZ >"$CS_HOME/.installed"
  write_launcher
  say "code-server ready in $((SECONDS - t0)) s"
}

# bin/code-server: runs code-server with the Node it was built for, whatever node is on PATH.
write_launcher() {
  local launcher="$CS_HOME/bin/code-server" node_bin
  node_bin="$(command -v node)"
  mkdir -p "$CS_HOME/bin"
  printf '#!/bin/sh\n# Written by scripts/bootstrap.sh: code-server %s on %s\nexec "%s" "%s" "$@"\n' \
    "$CODE_SERVER_VERSION" "$(node -v)" "$node_bin" "$CS_HOME/node_modules/code-server/out/node/entry.js" >"$launcher.tmp"
  chmod +x "$launcher.tmp"
  mv "$launcher.tmp" "$launcher"
}

main() {
  command -v npm >/dev/null || die "npm not found: install Node.js (any version with npm >= 10); the runtime itself comes from the npm registry"
  use_project_node || die "no Node ${NODE_RUNTIME_VERSION%%.*} runtime (see the messages above)"
  # The ABI-independence test loads the packaged binaries under Node 22 as well.
  node_runtime_dir "$NODE_ALT_RUNTIME_VERSION" >/dev/null || die "could not install Node $NODE_ALT_RUNTIME_VERSION"
  ensure_apt
  ensure_node_modules
  ensure_code_server
  bash "$ROOT/scripts/postgres-setup.sh" || die "pgvector setup failed (scripts/postgres-setup.sh)"
  mkdir -p "$CACHE/bin"
  ln -sfn "$CS_HOME/bin/code-server" "$CACHE/bin/code-server"
}

main "$@"
