#!/usr/bin/env bash
# `npm run demo`: bootstrap, build, package the VSIX, install it into a local code-server
# (persistent state under .cache/demo/), create the EHR demo workspace, then serve it and
# print the URL. Stays in the foreground until Ctrl-C. Offline: no download besides npm/apt.
#
# Environment: DEMO_HOST (127.0.0.1), DEMO_PORT (8080; the next free port when busy),
#              DEMO_DIR (.cache/demo)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
say() { printf '[demo] %s\n' "$*"; }
die() { printf '[demo] ERROR: %s\n' "$*" >&2; exit 1; }

HOST="${DEMO_HOST:-127.0.0.1}"
PORT="${DEMO_PORT:-8080}"
DEMO="${DEMO_DIR:-$ROOT/.cache/demo}"

# shellcheck source=scripts/node-runtime.sh
source scripts/node-runtime.sh
use_project_node || die "no Node ${NODE_RUNTIME_VERSION%%.*} runtime"
bash scripts/bootstrap.sh || die "bootstrap failed"
say "type-checking"
# The demo runs the esbuild bundle, so type errors warn here (npm test fails on them).
if ! tc="$(node node_modules/typescript/bin/tsc -p . 2>&1)"; then
  say "WARNING: tsc reported $(grep -c 'error TS' <<<"$tc") type error(s); continuing with the bundle:"
  grep 'error TS' <<<"$tc" | head -n 5 | sed 's/^/    /'
fi
say "packaging the VSIX"
mkdir -p "$DEMO"
bash scripts/package.sh --out "$DEMO/agent-memory.vsix" || die "packaging failed"

mkdir -p "$DEMO/user-data/User" "$DEMO/extensions" "$DEMO/xdg/config" "$DEMO/xdg/data"
export XDG_CONFIG_HOME="$DEMO/xdg/config" XDG_DATA_HOME="$DEMO/xdg/data" XDG_CACHE_HOME="$DEMO/xdg/cache"
CS="${AGENT_MEMORY_CACHE:-$ROOT/.cache}/bin/code-server"
[[ -x "$CS" ]] || die "code-server missing after bootstrap ($CS)"
if [[ ! -f "$DEMO/user-data/User/settings.json" ]]; then
  cat >"$DEMO/user-data/User/settings.json" <<'JSON'
{
  "workbench.startupEditor": "readme",
  "telemetry.telemetryLevel": "off",
  "extensions.autoUpdate": false,
  "extensions.autoCheckUpdates": false,
  "update.mode": "none",
  "git.openRepositoryInParentFolders": "never"
}
JSON
fi
"$CS" --install-extension "$DEMO/agent-memory.vsix" --force \
  --extensions-dir "$DEMO/extensions" --user-data-dir "$DEMO/user-data" >/dev/null \
  || die "installing the VSIX into code-server failed"
say "extension installed into ${DEMO#"$ROOT"/}/extensions"

bash scripts/demo-workspace.sh "$DEMO/workspace"

port_free() { node -e 'const s=require("net").createServer();s.once("error",()=>process.exit(1));s.listen(+process.argv[2],process.argv[1],()=>s.close())' "$HOST" "$1"; }
for _ in $(seq 1 20); do port_free "$PORT" && break; PORT=$((PORT + 1)); done
port_free "$PORT" || die "no free port near ${DEMO_PORT:-8080} on $HOST"

URL="http://$HOST:$PORT/?folder=$(node -p 'encodeURIComponent(process.argv[1])' "$DEMO/workspace")"
printf '\n[demo] Agent Memory demo: %s\n[demo] (Ctrl-C to stop)\n\n' "$URL"
exec "$CS" --auth none --bind-addr "$HOST:$PORT" --disable-telemetry --disable-update-check \
  --disable-workspace-trust --disable-getting-started-override \
  --user-data-dir "$DEMO/user-data" --extensions-dir "$DEMO/extensions" "$DEMO/workspace"
