#!/usr/bin/env bash
# Creates (or refreshes) the EHR demo workspace opened by `npm run demo`.
# Idempotent: existing files the user changed are kept; the database copy is only
# written when missing. Extend this script to add more demo content (the extension
# itself seeds the demo memory on first use).
#
# Usage: bash scripts/demo-workspace.sh DEST_DIR
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DEST="${1:?usage: demo-workspace.sh DEST_DIR}"
SRC="$ROOT/data/ehr"
say() { printf '[demo-workspace] %s\n' "$*"; }
die() { printf '[demo-workspace] ERROR: %s\n' "$*" >&2; exit 1; }

for f in mimic3-demo.sqlite ehrsql-mimic3-tasks.jsonl; do
  [[ -f "$SRC/$f" ]] || die "$SRC/$f missing (the EHR demo data ships in data/ehr/)"
done

mkdir -p "$DEST/ehr" "$DEST/.vscode"
copy_if_missing() { [[ -e "$2" ]] || cp "$1" "$2"; }
copy_if_missing "$SRC/mimic3-demo.sqlite" "$DEST/ehr/mimic3-demo.sqlite"
cp -f "$SRC/ehrsql-mimic3-tasks.jsonl" "$DEST/ehr/ehrsql-mimic3-tasks.jsonl"
cp -f "$SRC"/*LICENSE*.txt "$DEST/ehr/"
[[ -f "$SRC/README.md" ]] && cp -f "$SRC/README.md" "$DEST/ehr/DATA-README.md"

if [[ ! -f "$DEST/README.md" ]]; then
  cat >"$DEST/README.md" <<'MD'
# Agent Memory demo workspace

- `ehr/mimic3-demo.sqlite`: the MIMIC-III demo database (ODbL, see `ehr/`).
- `ehr/ehrsql-mimic3-tasks.jsonl`: EHRSQL questions over it (CC BY 4.0).

Open the **Agent Memory** view in the activity bar, or run commands from the palette
(F1, then type "Agent Memory"). Logs: "Agent Memory: Show Logs".
MD
fi

if [[ ! -f "$DEST/.vscode/settings.json" ]]; then
  cat >"$DEST/.vscode/settings.json" <<JSON
{
  "files.exclude": { "**/*.sqlite-wal": true, "**/*.sqlite-shm": true, "**/*.minisearch.json": true },
  "agentMemory.databasePath": "$DEST/.agent-memory/memory.sqlite",
  "agentMemory.agent.dataPath": "$DEST/ehr/mimic3-demo.sqlite"
}
JSON
fi

# The demo memory starts with 100 seed records (EHRSQL gold programs drawn with a fixed seed).
if [[ ! -f "$DEST/.agent-memory/memory.sqlite" ]]; then
  mkdir -p "$DEST/.agent-memory"
  CLI="$ROOT/dist/cli.js"
  [[ -f "$CLI" ]] || die "$CLI missing: run the bundle step first (npm run build)"
  n="$(node "$CLI" seed --db "$DEST/.agent-memory/memory.sqlite" --count 100 --data "$SRC")" || die "seeding the demo memory failed"
  say "seeded the demo memory with $n records"
fi
say "workspace ready: $DEST"
