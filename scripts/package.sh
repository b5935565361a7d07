#!/usr/bin/env bash
# Builds and packages the VSIX, then checks it:
#   - the files the extension needs at runtime are inside (bundle, native modules, EHR data)
#   - no native-module sources slipped in (deps/, src/, obj*, *.a)
#   - better-sqlite3 + sqlite-vec load from the extracted VSIX alone (this Node = code-server's)
#   - code-server accepts it (--install-extension into a throw-away extensions dir)
# Prints the VSIX path and size. The native binary matches Node 20 (code-server); desktop
# VS Code needs one VSIX per platform built for its Electron ABI (see README).
#
# Usage: bash scripts/package.sh [--out FILE] [--no-bundle] [--no-verify]
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
say() { printf '[package] %s\n' "$*"; }
die() { printf '[package] ERROR: %s\n' "$*" >&2; exit 1; }

VERSION="$(node -p 'require("./package.json").version')"
NAME="$(node -p 'require("./package.json").name')"
OUT="$ROOT/$NAME-$VERSION.vsix"
BUNDLE=1 VERIFY=1
while [[ $# -gt 0 ]]; do
  case "$1" in
    --out) OUT="$(realpath -m "$2")"; shift 2 ;;
    --no-bundle) BUNDLE=0; shift ;;
    --no-verify) VERIFY=0; shift ;;
    *) die "unknown option $1" ;;
  esac
done

t0=$SECONDS
if [[ $BUNDLE == 1 ]]; then node scripts/bundle.mjs --minify --quiet || die "bundle failed"; fi
[[ -f dist/extension.js ]] || die "dist/extension.js missing (run npm run build)"
[[ -f node_modules/better-sqlite3/build/Release/better_sqlite3.node ]] \
  || die "better-sqlite3 is not built (node_modules/better-sqlite3/build/Release/better_sqlite3.node missing): run npm ci"

rm -f "$OUT"
mkdir -p "$(dirname "$OUT")"
# Dependencies are detected with `npm list --production`; .vscodeignore keeps only the
# native runtime files. --skip-license/--allow-missing-repository keep vsce non-interactive.
log="$(mktemp)"
if ! npx --no-install vsce package --skip-license --allow-missing-repository --no-rewrite-relative-links --allow-star-activation \
     --out "$OUT" >"$log" 2>&1 </dev/null; then
  cat "$log" >&2; rm -f "$log"; die "vsce package failed"
fi
grep -iE '^\s*(WARNING|ERROR)' "$log" | grep -v 'nodedir' >&2 || true
rm -f "$log"
[[ -f "$OUT" ]] || die "vsce did not write $OUT"

if [[ $VERIFY == 1 ]]; then
  listing="$(unzip -Z1 "$OUT")"
  for f in extension/package.json extension/dist/extension.js extension/dist/dashboard.js \
           extension/node_modules/better-sqlite3/build/Release/better_sqlite3.node \
           extension/node_modules/better-sqlite3/lib/index.js \
           extension/node_modules/bindings/bindings.js \
           extension/node_modules/file-uri-to-path/index.js \
           extension/node_modules/sqlite-vec/index.cjs \
           extension/data/ehr/mimic3-demo.sqlite extension/data/ehr/ehrsql-mimic3-tasks.jsonl; do
    grep -qxF "$f" <<<"$listing" || die "VSIX lacks $f (check .vscodeignore)"
  done
  grep -qE '^extension/node_modules/sqlite-vec-[a-z0-9]+-[a-z0-9]+/vec0\.(so|dylib|dll)$' <<<"$listing" \
    || die "VSIX lacks the sqlite-vec loadable extension (check .vscodeignore)"
  if bad="$(grep -E '^extension/(src|test|out|scripts|node_modules/[^/]+/(deps|src))/|/obj(\.target)?/|\.a$|\.ts$|\.map$' <<<"$listing" | head -5)" && [[ -n "$bad" ]]; then
    die "VSIX carries files it should not (check .vscodeignore):"$'\n'"$bad"
  fi

  tmp="$(mktemp -d)"
  trap 'rm -rf "$tmp"' EXIT
  unzip -q "$OUT" -d "$tmp/vsix"
  (cd "$tmp" && node -e '
    const Database = require(process.argv[1] + "/node_modules/better-sqlite3");
    const vec = require(process.argv[1] + "/node_modules/sqlite-vec");
    const db = new Database(":memory:");
    vec.load(db);
    const v = db.prepare("select vec_version() as v").get().v;
    const d = db.prepare("select vec_distance_l2(?, ?) as d").get(new Float32Array([0, 0]), new Float32Array([3, 4])).d;
    if (Math.abs(d - 5) > 1e-6) throw new Error("sqlite-vec answered " + d);
    process.stdout.write("[package] native modules load from the VSIX (sqlite-vec " + v + ")\n");
  ' "$tmp/vsix/extension") || die "native modules do not load from the extracted VSIX"

  cs="${AGENT_MEMORY_CACHE:-$ROOT/.cache}/bin/code-server"
  if [[ -x "$cs" ]]; then
    mkdir -p "$tmp/xdg"
    XDG_CONFIG_HOME="$tmp/xdg" XDG_DATA_HOME="$tmp/xdg" "$cs" --install-extension "$OUT" \
      --extensions-dir "$tmp/ext" --user-data-dir "$tmp/ud" >"$tmp/install.log" 2>&1 \
      || { cat "$tmp/install.log" >&2; die "code-server --install-extension failed"; }
    XDG_CONFIG_HOME="$tmp/xdg" XDG_DATA_HOME="$tmp/xdg" "$cs" --list-extensions \
      --extensions-dir "$tmp/ext" --user-data-dir "$tmp/ud" 2>/dev/null | grep -qx "agent-memory.$NAME" \
      || die "code-server does not list agent-memory.$NAME after installing the VSIX"
    say "code-server installs it"
  else
    die "code-server not installed: run bash scripts/bootstrap.sh"
  fi
fi

size_kb=$(( $(stat -c %s "$OUT") / 1024 ))
files=$(unzip -Z1 "$OUT" | wc -l)
say "${OUT#"$ROOT"/}: ${size_kb} KiB, ${files} files ($((SECONDS - t0)) s)"
