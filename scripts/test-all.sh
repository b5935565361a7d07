#!/usr/bin/env bash
# `npm test`: bootstrap, build, then every suite; ends with ONE line "N passed, N failed".
#   lint         type-aware eslint (eslint.config.mjs), zero warnings
#   unit         mocha in plain Node (test/unit, via tsx)
#   integration  mocha inside a real VS Code extension host (code-server + Chromium)
#   platform     the VSIX's linux-x64 binaries load and answer a hybrid query under Node 22 and 24
#   e2e          UI tests in Chromium against code-server with the packaged VSIX
# A build step, packaging check or suite that cannot start counts as failed (never skipped).
# Exit status: 0 only when nothing failed.
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
export npm_config_update_notifier=false
WORK="$(mktemp -d "${TMPDIR:-/tmp}/agent-memory-test.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
PASSED=0 FAILED=0
LINES=()

banner() { printf '\n=== %s ===\n' "$*"; }
note() { LINES+=("$(printf '%-12s %s' "$1" "$2")"); }
fail_step() { # name message: a step that is not a test suite but must not fail
  FAILED=$((FAILED + 1)); note "$1" "FAILED: $2"
  printf '\n*** %s FAILED: %s ***\n' "$1" "$2" >&2
}
# run_suite NAME COUNTS_FILE CMD...: the command writes {"passed":N,"failed":N} to COUNTS_FILE.
run_suite() {
  local name="$1" counts="$2"; shift 2
  local t0=$SECONDS status p f
  rm -f "$counts"
  banner "$name"
  "$@"; status=$?
  if [[ -s "$counts" ]]; then
    p="$(node -p "require('$counts').passed")"; f="$(node -p "require('$counts').failed")"
    if [[ $status -ne 0 && $f -eq 0 ]]; then f=1; fi # non-zero exit with no counted failure
  else
    p=0; f=1
    printf '\n*** %s: no results (the suite did not start or crashed, exit %s) ***\n' "$name" "$status" >&2
  fi
  PASSED=$((PASSED + p)); FAILED=$((FAILED + f))
  note "$name" "$p passed, $f failed ($((SECONDS - t0)) s)"
}

banner bootstrap
# Every step below runs with the project's Node runtime (Node 24; installed from npm if needed).
# shellcheck source=scripts/node-runtime.sh
source scripts/node-runtime.sh
if ! use_project_node || ! bash scripts/bootstrap.sh; then
  printf '\n*** bootstrap FAILED: nothing could run ***\n0 passed, 1 failed\n'
  exit 1
fi

banner build
node node_modules/typescript/bin/tsc -p . || fail_step typecheck "tsc -p . reported errors"
node scripts/bundle.mjs || fail_step bundle "esbuild bundle failed"

banner lint
if node node_modules/eslint/bin/eslint.js . --max-warnings 0; then
  note lint "clean (type-aware eslint, 0 warnings)"
else
  fail_step lint "eslint reported problems (npx eslint .)"
fi

export MOCHA_COUNTS_FILE
MOCHA_COUNTS_FILE="$WORK/unit.json"
run_suite unit "$WORK/unit.json" \
  node node_modules/mocha/bin/mocha.js --config .mocharc.json --reporter ./scripts/mocha-counts-reporter.cjs

run_suite integration "$WORK/integration.json" \
  node scripts/run-vscode-tests.mjs --no-build --counts-file "$WORK/integration.json"

banner package
VSIX="$WORK/agent-memory.vsix"
if bash scripts/package.sh --out "$VSIX"; then
  export AGENT_MEMORY_E2E_VSIX="$VSIX"
else
  fail_step package "VSIX packaging or its checks failed"
  unset AGENT_MEMORY_E2E_VSIX # the UI tests still run, against the development extension
fi

# The packaged linux-x64 binaries under Node 22 and Node 24 (packages its own VSIX if the step above failed).
MOCHA_COUNTS_FILE="$WORK/platform.json"
run_suite platform "$WORK/platform.json" \
  node node_modules/mocha/bin/mocha.js --config test/platform/.mocharc.json --reporter ./scripts/mocha-counts-reporter.cjs

MOCHA_COUNTS_FILE="$WORK/e2e.json"
run_suite e2e "$WORK/e2e.json" \
  node node_modules/mocha/bin/mocha.js --config test/e2e/.mocharc.json --reporter ./scripts/mocha-counts-reporter.cjs

banner summary
printf '%s\n' "${LINES[@]}"
printf '%s passed, %s failed\n' "$PASSED" "$FAILED"
[[ $FAILED -eq 0 ]]
