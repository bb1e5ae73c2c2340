#!/usr/bin/env bash
# postgres.sh — a private PostgreSQL 15 for Mission Control's replicated mode and its tests:
# its own data dir under .state/, its own port on 127.0.0.1, password auth, one database and
# one role for Mission Control. Never uses or touches a system PostgreSQL service.
#
# Usage: scripts/postgres.sh start|stop|restart|status|url|kill|purge
#   start    initialise the data dir if missing, start, create role + database if missing
#   stop     fast shutdown          restart  stop, then start
#   kill     kill -9 the postmaster (failure tests)
#   status   exit 0 when it answers
#   url      print the connection URL (postgres://mission_control:…@127.0.0.1:PORT/mission_control)
#   purge    stop and delete the data dir
#
# Tunables (env): PG_PORT (5433), PG_HOME (.state/pg-$PG_PORT), PG_PASSWORD
# (mission-control-pg), PG_BIN (the directory of PostgreSQL 15's binaries).
# As root, the server runs as the system user "postgres" (PostgreSQL refuses root).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PG_PORT="${PG_PORT:-5433}"
PG_HOME="${PG_HOME:-$ROOT/.state/pg-$PG_PORT}"
PG_PASSWORD="${PG_PASSWORD:-mission-control-pg}"
PG_BIN="${PG_BIN:-/usr/lib/postgresql/15/bin}"
DATA="$PG_HOME/data"
LOG="$PG_HOME/postgres.log"
URL="postgres://mission_control:$PG_PASSWORD@127.0.0.1:$PG_PORT/mission_control"

say() { echo "[postgres:$PG_PORT] $*" >&2; }
as_owner() {
  if [[ $EUID -eq 0 ]]; then runuser -u postgres -- "$@"; else "$@"; fi
}
answers() { as_owner "$PG_BIN/pg_isready" -q -h 127.0.0.1 -p "$PG_PORT" -d postgres; }
psql_admin() { as_owner /usr/bin/psql -q -h 127.0.0.1 -p "$PG_PORT" -U postgres -d postgres -v ON_ERROR_STOP=1 "$@"; }

init() {
  [[ -f "$DATA/PG_VERSION" ]] && return
  [[ -x "$PG_BIN/initdb" ]] || { say "PostgreSQL 15 is not installed ($PG_BIN); run scripts/setup"; exit 1; }
  say "initialising $DATA"
  mkdir -p "$PG_HOME"
  if [[ $EUID -eq 0 ]]; then chown postgres: "$PG_HOME"; fi
  chmod 700 "$PG_HOME"
  # Local socket connections of the owner are trusted (administration only); TCP needs a
  # password.
  as_owner "$PG_BIN/initdb" -D "$DATA" -U postgres --auth-local=trust --auth-host=scram-sha-256 \
    -E UTF8 --locale=C.UTF-8 >/dev/null
  cat >> "$DATA/postgresql.conf" <<EOF
listen_addresses = '127.0.0.1'
port = $PG_PORT
unix_socket_directories = '$PG_HOME'
fsync = on
max_connections = 200
log_destination = 'stderr'
log_min_messages = warning
EOF
}

# Whether the postmaster of the pid file lives (a zombie nobody reaped does not: where PID 1
# does not reap, a stopped or killed postmaster stays one).
postmaster_alive() {
  [[ -f "$DATA/postmaster.pid" ]] || return 1
  local state
  state="$(awk '{print $3}' "/proc/$(head -1 "$DATA/postmaster.pid")/stat" 2>/dev/null || true)"
  [[ -n "$state" && "$state" != "Z" ]]
}

drop_stale_pidfile() {
  if [[ -f "$DATA/postmaster.pid" ]] && ! postmaster_alive; then
    rm -f "$DATA/postmaster.pid" "$PG_HOME/.s.PGSQL.$PG_PORT" "$PG_HOME/.s.PGSQL.$PG_PORT.lock"
  fi
}

start() {
  init
  if answers; then say "running at 127.0.0.1:$PG_PORT"; return; fi
  drop_stale_pidfile
  as_owner "$PG_BIN/pg_ctl" -D "$DATA" -l "$LOG" -w -t 30 start >/dev/null
  # Role and database for Mission Control (idempotent), over the owner's local socket.
  as_owner /usr/bin/psql -q -h "$PG_HOME" -p "$PG_PORT" -U postgres -d postgres -v ON_ERROR_STOP=1 <<EOF
DO \$\$ BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'mission_control') THEN
    CREATE ROLE mission_control LOGIN PASSWORD '$PG_PASSWORD';
  END IF;
END \$\$;
SELECT 'CREATE DATABASE mission_control OWNER mission_control'
WHERE NOT EXISTS (SELECT FROM pg_database WHERE datname = 'mission_control')\gexec
EOF
  say "ready: $URL"
}

stop() {
  postmaster_alive || { drop_stale_pidfile; return 0; }
  kill -INT "$(head -1 "$DATA/postmaster.pid")" # fast shutdown
  for _ in $(seq 1 300); do postmaster_alive || break; sleep 0.1; done
  drop_stale_pidfile
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  restart) stop; start ;;
  kill)
    # The postmaster and all its backends at once, as a machine loss would.
    if [[ -f "$DATA/postmaster.pid" ]]; then
      pid="$(head -1 "$DATA/postmaster.pid")"
      kill -STOP "$pid" 2>/dev/null || true
      pkill -9 -P "$pid" 2>/dev/null || true
      kill -9 "$pid" 2>/dev/null || true
    fi ;;
  status) answers ;;
  url) echo "$URL" ;;
  purge) stop; rm -rf "$PG_HOME" ;;
  *) echo "usage: $0 start|stop|restart|status|url|kill|purge" >&2; exit 2 ;;
esac
