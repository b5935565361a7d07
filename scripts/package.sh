#!/usr/bin/env bash
# Builds and packages ONE VSIX for every platform, then checks it:
#   - the sqlite-vec loadables of its five platforms are fetched with `npm pack
#     sqlite-vec-<platform>@<version>` (cached in $AGENT_MEMORY_CACHE/sqlite-vec/) into native/
#   - the files the extension needs at runtime are inside (bundle, EHR data), with better-sqlite3's
#     Node-API prebuilds for linux-x64/arm64, linuxmusl-x64/arm64, darwin-x64/arm64, win32-x64/arm64
#     and the five sqlite-vec loadables
#   - no native-module sources slipped in (deps/, src/, obj*, *.a)
#   - better-sqlite3 + sqlite-vec load from the extracted VSIX alone
#   - code-server accepts it (--install-extension into a throw-away extensions dir)
# Prints the VSIX path and size. Node-API: the same binaries serve every Node >= 22.14 and
# every Electron of VS Code >= 1.101 (test/platform/abi.test.ts loads them under Node 22 and 24).
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

SQLITE_PREBUILDS=(linux-x64 linux-arm64 linuxmusl-x64 linuxmusl-arm64 darwin-x64 darwin-arm64 win32-x64 win32-arm64)
SQLITE_VEC_VERSION="$(node -p 'require("./package.json").dependencies["sqlite-vec"]')"
# target:file of each published sqlite-vec loadable
SQLITE_VEC_FILES=(linux-x64:vec0.so linux-arm64:vec0.so darwin-x64:vec0.dylib darwin-arm64:vec0.dylib windows-x64:vec0.dll)

# native/sqlite-vec-<target>/vec0.* for every platform, from the npm registry (tarballs cached).
fetch_sqlite_vec() {
  local cache="${AGENT_MEMORY_CACHE:-$ROOT/.cache}/sqlite-vec/$SQLITE_VEC_VERSION" entry target file pkg tgz dest
  mkdir -p "$cache"
  for entry in "${SQLITE_VEC_FILES[@]}"; do
    target="${entry%%:*}" file="${entry#*:}" pkg="sqlite-vec-${entry%%:*}"
    tgz="$cache/$pkg-$SQLITE_VEC_VERSION.tgz"
    if [[ ! -s "$tgz" ]]; then
      (cd "$cache" && npm pack --silent "$pkg@$SQLITE_VEC_VERSION" >/dev/null 2>"$cache/pack.log") \
        || { cat "$cache/pack.log" >&2; die "npm pack $pkg@$SQLITE_VEC_VERSION failed"; }
    fi
    dest="native/sqlite-vec-$target"
    rm -rf "$dest"; mkdir -p "$dest"
    tar xzf "$tgz" -C "$dest" --strip-components=1 "package/$file" "package/package.json" || die "$tgz lacks package/$file"
  done
}

t0=$SECONDS
if [[ $BUNDLE == 1 ]]; then node scripts/bundle.mjs --minify --quiet || die "bundle failed"; fi
[[ -f dist/extension.js ]] || die "dist/extension.js missing (run npm run build)"
for t in "${SQLITE_PREBUILDS[@]}"; do
  [[ -f "node_modules/better-sqlite3/prebuilds/$t.node" ]] || die "better-sqlite3 has no prebuild for $t (node_modules/better-sqlite3/prebuilds/$t.node): run npm ci"
done
# A locally compiled binary would shadow the prebuilds in this checkout (lib/binding.js prefers
# build/{Debug,Release}/better_sqlite3.node), so what the tests load would not be what ships.
# (`npm ci` runs better-sqlite3's `node-gyp rebuild`, which leaves an empty build/ when a
# prebuild fits: that is fine, and .vscodeignore keeps build/ out of the VSIX anyway.)
for b in node_modules/better-sqlite3/build/{Debug,Release}/better_sqlite3.node; do
  [[ ! -f "$b" ]] || die "$b exists (a local rebuild): remove node_modules/better-sqlite3/build so the prebuilds are used"
done
fetch_sqlite_vec

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
  want=(extension/package.json extension/dist/extension.js extension/dist/dashboard.js
        extension/node_modules/better-sqlite3/lib/index.js extension/node_modules/better-sqlite3/lib/binding.js
        extension/data/ehr/mimic3-demo.sqlite extension/data/ehr/ehrsql-mimic3-tasks.jsonl)
  for t in "${SQLITE_PREBUILDS[@]}"; do want+=("extension/node_modules/better-sqlite3/prebuilds/$t.node"); done
  for entry in "${SQLITE_VEC_FILES[@]}"; do want+=("extension/native/sqlite-vec-${entry%%:*}/${entry#*:}"); done
  for f in "${want[@]}"; do
    grep -qxF "$f" <<<"$listing" || die "VSIX lacks $f (check .vscodeignore)"
  done
  say "binaries inside: better-sqlite3 prebuilds ${SQLITE_PREBUILDS[*]}; sqlite-vec $SQLITE_VEC_VERSION ${SQLITE_VEC_FILES[*]%%:*}"
  if bad="$(grep -E '^extension/(src|test|out|scripts|node_modules/[^/]+/(deps|src))/|/obj(\.target)?/|\.a$|\.ts$|\.map$' <<<"$listing" | head -5)" && [[ -n "$bad" ]]; then
    die "VSIX carries files it should not (check .vscodeignore):"$'\n'"$bad"
  fi

  tmp="$(mktemp -d)"
  trap 'rm -rf "$tmp"' EXIT
  unzip -q "$OUT" -d "$tmp/vsix"
  (cd "$tmp" && node -e '
    const Database = require(process.argv[1] + "/node_modules/better-sqlite3");
    const target = { "linux-x64": "linux-x64", "linux-arm64": "linux-arm64", "darwin-x64": "darwin-x64", "darwin-arm64": "darwin-arm64", "win32-x64": "windows-x64" }[process.platform + "-" + process.arch];
    const ext = { win32: "dll", darwin: "dylib" }[process.platform] || "so";
    const db = new Database(":memory:");
    db.loadExtension(process.argv[1] + "/native/sqlite-vec-" + target + "/vec0." + ext);
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

size_kb=$(( $(stat -c %s "$OUT" 2>/dev/null || stat -f %z "$OUT") / 1024 ))
files=$(unzip -Z1 "$OUT" | wc -l)
say "${OUT#"$ROOT"/}: ${size_kb} KiB, ${files} files ($((SECONDS - t0)) s)"
