#!/usr/bin/env bash
# A throwaway PostgreSQL server for the SQL-catalog integration tests.
#
#   bash scripts/setup-postgres.sh [start]    installs Debian's postgresql if missing (root only), starts a fresh
#                                             cluster in a temp dir on a free 127.0.0.1 port and prints
#                                             PG_TEST_URL=postgresql://postgres@127.0.0.1:PORT/postgres
#                                             PG_TEST_DIR=<cluster dir>
#   bash scripts/setup-postgres.sh stop DIR   stops that cluster and deletes DIR
#
# Auth: user `postgres` is trusted on loopback (no password); every other role needs its password
# (scram-sha-256), so tests can check a wrong password is refused. fsync is off: the data is disposable.
# Exit code 2 with a `SKIP:` line on stderr when PostgreSQL cannot be installed or started.
set -euo pipefail

skip() { echo "SKIP: $*" >&2; exit 2; }

pg_bindir() {
  local d
  for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
    [[ -x "$d/initdb" && -x "$d/pg_ctl" ]] && { echo "$d"; return 0; }
  done
  if command -v initdb >/dev/null && command -v pg_ctl >/dev/null; then dirname "$(command -v initdb)"; return 0; fi
  return 1
}

# run a command as the postgres OS user when we are root (initdb refuses to run as root)
as_pg() {
  if [[ $(id -u) -eq 0 ]]; then
    if command -v runuser >/dev/null; then runuser -u postgres -- "$@"; else su postgres -s /bin/sh -c "$(printf '%q ' "$@")"; fi
  else
    "$@"
  fi
}

port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

start() {
  local bin
  if ! bin=$(pg_bindir); then
    [[ $(id -u) -eq 0 ]] || skip "PostgreSQL is not installed and installing it needs root"
    command -v apt-get >/dev/null || skip "PostgreSQL is not installed and apt-get is unavailable"
    echo "installing postgresql (apt-get)…" >&2
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql; } >&2 || skip "apt-get install postgresql failed"
    bin=$(pg_bindir) || skip "postgresql installed but initdb/pg_ctl not found"
  fi
  if [[ $(id -u) -eq 0 ]] && ! id postgres >/dev/null 2>&1; then
    useradd --system --home-dir /var/lib/postgresql --shell /bin/sh postgres >&2 || skip "cannot create the postgres OS user"
  fi

  local dir
  dir=$(mktemp -d "${TMPDIR:-/tmp}/floe-pg.XXXXXX")
  chmod 755 "$dir"
  [[ $(id -u) -eq 0 ]] && chown postgres: "$dir"
  as_pg "$bin/initdb" -D "$dir/data" -U postgres -A trust -E UTF8 --no-sync >"$dir/initdb.log" 2>&1 \
    || { cat "$dir/initdb.log" >&2; rm -rf "$dir"; skip "initdb failed"; }
  cat >"$dir/data/pg_hba.conf" <<'HBA'
local all all                 trust
host  all postgres 127.0.0.1/32 trust
host  all all      127.0.0.1/32 scram-sha-256
HBA
  [[ $(id -u) -eq 0 ]] && chown postgres: "$dir/data/pg_hba.conf"

  local tries port
  for tries in 1 2 3 4 5; do
    port=$(( 20000 + RANDOM % 30000 ))
    port_free "$port" || continue
    if as_pg "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
        -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off" start >/dev/null 2>&1; then
      echo "PG_TEST_URL=postgresql://postgres@127.0.0.1:$port/postgres"
      echo "PG_TEST_DIR=$dir"
      return 0
    fi
  done
  tail -20 "$dir/server.log" >&2 2>/dev/null || true
  rm -rf "$dir"
  skip "pg_ctl could not start a server"
}

stop() {
  local dir=${1:?usage: setup-postgres.sh stop DIR}
  [[ -d "$dir/data" ]] || { rm -rf "$dir"; return 0; }
  local bin
  bin=$(pg_bindir) || true
  [[ -n "${bin:-}" ]] && as_pg "$bin/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true
  rm -rf "$dir"
}

case "${1:-start}" in
  start) start ;;
  stop) stop "${2:-}" ;;
  *) echo "usage: $0 [start | stop DIR]" >&2; exit 64 ;;
esac
