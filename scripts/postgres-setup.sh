#!/usr/bin/env bash
# Idempotent: pgvector for the PostgreSQL 15 the team-memory tests and bench run against,
# built from the vendored source release (checksum verified) and installed into PostgreSQL
# 15's extension directory. The apt packages (postgresql-15, postgresql-server-dev-15,
# build-essential) come from scripts/bootstrap.sh, which calls this script.
# Fast (< 1 s) when it is in place. No cluster is created here: tests and `bench:team`
# start their own throwaway cluster (test/support/postgres.ts, src/cli/team/throwaway-postgres.ts).
#
# Usage: bash scripts/postgres-setup.sh     (AGENT_MEMORY_VENDOR=/dir overrides the vendor folder)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENDOR="${AGENT_MEMORY_VENDOR:-$ROOT/../shared/vendor}"
[[ -d "$VENDOR" ]] || VENDOR=/work/shared/vendor
PGVECTOR_VERSION="0.8.6"
PG_CONFIG=/usr/lib/postgresql/15/bin/pg_config

say() { printf '[postgres-setup] %s\n' "$*"; }
die() { printf '[postgres-setup] ERROR: %s\n' "$*" >&2; exit 1; }

ensure_pgvector() {
  local extdir; extdir="$("$PG_CONFIG" --sharedir)/extension"
  if [[ -f "$extdir/vector--$PGVECTOR_VERSION.sql" && -f "$("$PG_CONFIG" --pkglibdir)/vector.so" ]]; then
    return 0
  fi
  local tarball="$VENDOR/pgvector-$PGVECTOR_VERSION.tar.gz"
  [[ -f "$tarball" ]] || die "pgvector source not found: $tarball (set AGENT_MEMORY_VENDOR)"
  (cd "$VENDOR" && sha256sum -c --quiet "pgvector-$PGVECTOR_VERSION.tar.gz.sha256") \
    || die "checksum mismatch for $tarball: refusing to build it"
  local build; build="$(mktemp -d)"
  tar xzf "$tarball" -C "$build"
  say "building pgvector $PGVECTOR_VERSION (about 15 s)"
  make -s -C "$build/pgvector-$PGVECTOR_VERSION" PG_CONFIG="$PG_CONFIG" OPTFLAGS="" >/dev/null 2>"$build/build.log" \
    || { tail -n 20 "$build/build.log" >&2; die "pgvector build failed"; }
  make -s -C "$build/pgvector-$PGVECTOR_VERSION" install PG_CONFIG="$PG_CONFIG" >/dev/null \
    || die "pgvector install failed"
  rm -rf "$build"
  say "pgvector $PGVECTOR_VERSION installed"
}

[[ -x "$PG_CONFIG" ]] || die "PostgreSQL 15 is not installed ($PG_CONFIG missing): run bash scripts/bootstrap.sh (as root)"
ensure_pgvector
