#!/usr/bin/env bash
# openstack.sh — a real, small OpenStack (Debian 12's Zed packages) on 127.0.0.1 for testing
# Mission Control's OpenStack provider against the real APIs: Nova (fake virt driver, no
# hypervisor), Placement, Glance, Neutron (ML2 + Linux bridge agent, so ports bind), Cinder
# (fake volume driver) and Octavia (amphora provider, noop drivers), on one MariaDB and one
# RabbitMQ, registered in the local Keystone of scripts/keystone.sh. Every service is a
# process of its own; configs, databases, logs and pid files live under $OS_HOME. Never uses
# systemd or the system services the packages ship. Run as root (apt, Linux bridge agent).
#
# Usage: scripts/openstack.sh install|start|stop|status|env|purge|kill|start-one|restart [NAME]
#        scripts/openstack.sh seed-load N
#   install  apt-get the packages that are missing (no service is started: policy-rc.d)
#   start    install if missing, start Keystone if needed, init + start everything, register
#            the catalog, seed flavors/image/networks/quotas, write $OS_HOME/openstack.env.
#            Idempotent: with everything up it only checks and re-seeds (a few seconds).
#   stop     stop every process started here   status  exit 0 when every service answers
#   env      print openstack.env               purge   stop, then delete $OS_HOME
#   One service, NAME as in `status` (nova-api, rabbitmq, mysqld, ...), for fault tests:
#   kill NAME       kill -9 its process group, as a crash would, and wait until it is gone
#   start-one NAME  start it unless it runs, and wait until it answers again: its port
#                   (the APIs, MariaDB, RabbitMQ, epmd), a heartbeat newer than its start
#                   (nova-compute, the Linux bridge agent), else its process runs
#   restart NAME    stop it (TERM, then KILL after 10 s), then start-one
#   seed-load N     projects load0 .. load<N-1> for the idle-load benchmark (seed.py load):
#                   each like demo's, user "loader" as member; prints "name id" lines
#
# Tunables (env):
#   OS_HOME (.state/openstack)   state dir          OS_REGION (RegionOne)
#   OS_HOST (mc-openstack)       [DEFAULT] host of nova-compute and the Linux bridge agent
#   Ports on 127.0.0.1: OS_NOVA_PORT 8774, OS_PLACEMENT_PORT 8778, OS_GLANCE_PORT 9292,
#     OS_NEUTRON_PORT 9696, OS_CINDER_PORT 8776, OS_OCTAVIA_PORT 9876, OS_DB_PORT 3307,
#     OS_RABBIT_PORT 5673 (Erlang distribution: OS_RABBIT_PORT+20000), OS_EPMD_PORT 4370
#   OS_SERVICE_PASSWORD (openstack-service-secret)  password of the service users
#   OS_DB_PASSWORD (openstack-db-secret)            MariaDB user "openstack"
#   OS_BUS_PASSWORD (openstack-bus-secret)          RabbitMQ user "mission-control", which may
#                                                   only read Nova's notifications
#   OS_USER_ROLES ("member load-balancer_member")   granted to alice (demo, staging), bob (demo)
#   OS_CONTROLLER_ROLES (admin)  granted to the service user mission-control on demo and
#                                staging ("" grants nothing)
#   OS_QUOTA ("instances=6 cores=12 ram=24576")     Nova quota of demo and staging
#   OS_DEBUG (false)  services' debug logging
#   OS_OCTAVIA_CA_PASSPHRASE (octavia-test-ca)     of the CA key made for Octavia
#   KS_PORT (5000), KS_HOME, KS_ADMIN_PASSWORD: the Keystone, as in scripts/keystone.sh
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OS_HOME="${OS_HOME:-$ROOT/.state/openstack}"
OS_REGION="${OS_REGION:-RegionOne}"
OS_HOST="${OS_HOST:-mc-openstack}"
OS_NOVA_PORT="${OS_NOVA_PORT:-8774}"
OS_PLACEMENT_PORT="${OS_PLACEMENT_PORT:-8778}"
OS_GLANCE_PORT="${OS_GLANCE_PORT:-9292}"
OS_NEUTRON_PORT="${OS_NEUTRON_PORT:-9696}"
OS_CINDER_PORT="${OS_CINDER_PORT:-8776}"
OS_OCTAVIA_PORT="${OS_OCTAVIA_PORT:-9876}"
OS_DB_PORT="${OS_DB_PORT:-3307}"
OS_RABBIT_PORT="${OS_RABBIT_PORT:-5673}"
OS_EPMD_PORT="${OS_EPMD_PORT:-4370}"
OS_SERVICE_PASSWORD="${OS_SERVICE_PASSWORD:-openstack-service-secret}"
OS_DB_PASSWORD="${OS_DB_PASSWORD:-openstack-db-secret}"
OS_BUS_PASSWORD="${OS_BUS_PASSWORD:-openstack-bus-secret}"
OS_USER_ROLES="${OS_USER_ROLES-member load-balancer_member}"
OS_CONTROLLER_ROLES="${OS_CONTROLLER_ROLES-admin}"
OS_QUOTA="${OS_QUOTA:-instances=6 cores=12 ram=24576}"
OS_DEBUG="${OS_DEBUG:-false}"
OS_OCTAVIA_CA_PASSPHRASE="${OS_OCTAVIA_CA_PASSPHRASE:-octavia-test-ca}"
KS_PORT="${KS_PORT:-5000}"
KS_HOME="${KS_HOME:-$ROOT/.state/keystone-$KS_PORT}"
KS_ADMIN_PASSWORD="${KS_ADMIN_PASSWORD:-admin-secret}"
KS_BASE="http://127.0.0.1:$KS_PORT"
ETC="$OS_HOME/etc"
RUN="$OS_HOME/run"
LOGS="$OS_HOME/logs"
PY=/usr/bin/python3 # Debian's, whatever python3 is first on PATH
export PYTHONWARNINGS=ignore

PACKAGES=(mariadb-server rabbitmq-server python3-pymysql placement-api glance-api neutron-server
  neutron-linuxbridge-agent nova-api nova-conductor nova-scheduler nova-compute nova-compute-ironic
  cinder-api cinder-scheduler cinder-volume python3-fixtures octavia-api octavia-worker uwsgi-core
  uwsgi-plugin-python3 openssl curl)

# name:port of the HTTP APIs, checked by start and status
APIS=("placement:$OS_PLACEMENT_PORT" "glance:$OS_GLANCE_PORT" "neutron-server:$OS_NEUTRON_PORT"
  "nova-api:$OS_NOVA_PORT" "cinder-api:$OS_CINDER_PORT" "octavia-api:$OS_OCTAVIA_PORT")
# every process started here, in start order (stop goes in reverse)
SERVICES=(mysqld epmd rabbitmq placement glance neutron-server neutron-linuxbridge-agent
  nova-api nova-conductor nova-scheduler nova-compute cinder-api cinder-scheduler cinder-volume
  octavia-api octavia-worker)

# shellcheck source=scripts/openstack/configs.sh
source "$ROOT/scripts/openstack/configs.sh"

say() { echo "[openstack] $*" >&2; }
now() { echo "${EPOCHREALTIME/,/.}"; }
T0=$(now)
since() { awk -v a="$(now)" -v b="$1" 'BEGIN { printf "%6.1f s", a - b }'; }
# step NAME CMD...: run a step, print its duration
step() {
  local name=$1 t; shift; t=$(now)
  "$@"
  say "$(printf '%-28s' "$name") $(since "$t")"
}
fail() { say "$*"; exit 1; }
wait_all() { local p; for p; do wait "$p" || return 1; done; }

# The command line of each process (run with nice -n 10 in its own session).
cmd_of() {
  local c="--config-file=$ETC"
  case $1 in
    mysqld) echo "mariadbd --defaults-file=$ETC/my.cnf" ;;
    epmd) echo "epmd -address 127.0.0.1 -port $OS_EPMD_PORT" ;;
    rabbitmq) echo "/usr/lib/rabbitmq/bin/rabbitmq-server" ;;
    placement|nova-api|cinder-api|octavia-api) echo "uwsgi --ini $ETC/$1-uwsgi.ini" ;;
    glance) echo "glance-api $c/glance-api.conf" ;;
    neutron-*) echo "$1 $c/neutron.conf" ;;
    nova-compute) echo "$1 $c/nova.conf $c/nova-compute.conf" ;;
    nova-*) echo "$1 $c/nova.conf" ;;
    cinder-*) echo "$1 $c/cinder.conf" ;;
    octavia-*) echo "$1 $c/octavia.conf" ;;
  esac
}

# alive PIDFILE-NAME: the process lives (a zombie nobody reaps does not)
alive() {
  local f="$RUN/$1.pid" st
  [[ -f $f ]] || return 1
  st="$(awk '{print $3}' "/proc/$(cat "$f")/stat" 2>/dev/null || true)"
  [[ -n $st && $st != Z ]]
}

rabbit_env() {
  export HOME="$OS_HOME/rabbitmq" RABBITMQ_NODENAME="mcos@localhost" \
    RABBITMQ_NODE_IP_ADDRESS=127.0.0.1 RABBITMQ_NODE_PORT="$OS_RABBIT_PORT" \
    RABBITMQ_DIST_PORT=$((OS_RABBIT_PORT + 20000)) ERL_EPMD_ADDRESS=127.0.0.1 \
    ERL_EPMD_PORT="$OS_EPMD_PORT" RABBITMQ_MNESIA_BASE="$OS_HOME/rabbitmq/mnesia" \
    RABBITMQ_LOG_BASE="$LOGS" RABBITMQ_LOGS="$LOGS/rabbitmq.log" \
    RABBITMQ_CONFIG_FILE="$OS_HOME/rabbitmq/rabbitmq.conf" \
    RABBITMQ_ENABLED_PLUGINS_FILE="$OS_HOME/rabbitmq/enabled_plugins" \
    RABBITMQ_CONF_ENV_FILE="$OS_HOME/rabbitmq/rabbitmq-env.conf" \
    RABBITMQ_PID_FILE="$RUN/rabbitmq-beam.pid" \
    RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS="-kernel inet_dist_use_interface {127,0,0,1} +S 1:1 +sbwt none +sbwtdcpu none +sbwtdio none"
}

# launch NAME: start the process in a session of its own (its pid = its process group)
launch() {
  alive "$1" && return
  (
    cd "$OS_HOME"
    [[ $1 == rabbitmq ]] && rabbit_env
    # shellcheck disable=SC2046
    setsid nice -n 10 $(cmd_of "$1") >> "$LOGS/$1.log" 2>&1 < /dev/null &
    echo $! > "$RUN/$1.pid"
  )
}

stop_one() {
  alive "$1" || { rm -f "$RUN/$1.pid"; return 0; }
  local pid; pid=$(cat "$RUN/$1.pid")
  kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 1 100); do alive "$1" || break; sleep 0.1; done
  # octavia-worker's cotyledon master (and sometimes others) ignore TERM while busy
  kill -KILL -- "-$pid" 2>/dev/null || true
  wait_for 10 "$1's processes to end" group_gone "$pid"
  rm -f "$RUN/$1.pid"
}

stop_all() {
  local i pids=()
  # services first (in parallel), then the broker, its epmd and the database
  for ((i = ${#SERVICES[@]} - 1; i >= 3; i--)); do stop_one "${SERVICES[i]}" & pids+=($!); done
  wait "${pids[@]}" 2>/dev/null || true
  stop_one rabbitmq; stop_one epmd; stop_one mysqld
}

# wait_for SECONDS DESCRIPTION CMD...: poll CMD every 0.2 s
wait_for() {
  local limit=$1 what=$2 end; shift 2
  end=$(( $(date +%s) + limit ))
  until "$@" >/dev/null 2>&1; do
    (( $(date +%s) < end )) || fail "timeout after ${limit}s waiting for $what (logs: $LOGS)"
    sleep 0.2
  done
}
port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
# group_gone PGID: no live process of the group (each service runs in its own, by setsid)
group_gone() { ! ps -eo pgid=,stat= | awk -v g="$1" '$1 == g && $2 !~ /^Z/ { f = 1 } END { exit !f }'; }
http_answers() { [[ "$(curl -s -o /dev/null -w '%{http_code}' -m 5 -H 'Connection: close' "http://127.0.0.1:$1/")" =~ ^[2-4] ]]; }
mysql_root() { mariadb --no-defaults -uroot -S "$RUN/mysql.sock" "$@"; }

missing_packages() {
  local p
  for p in "${PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || echo "$p"
  done
}

do_install() {
  local missing; missing=$(missing_packages | tr '\n' ' ')
  [[ -z ${missing// /} ]] && { say "packages installed"; return; }
  [[ $EUID -eq 0 ]] || fail "run as root to install: $missing"
  say "installing $missing(and dependencies; ~3 min)"
  local made_policy=0
  if [[ ! -e /usr/sbin/policy-rc.d ]]; then
    printf '#!/bin/sh\n# scripts/openstack.sh: no service starts during the install\nexit 101\n' > /usr/sbin/policy-rc.d
    chmod 755 /usr/sbin/policy-rc.d; made_policy=1
  fi
  # shellcheck disable=SC2086
  { nice -n 10 apt-get update -q && DEBIAN_FRONTEND=noninteractive nice -n 10 apt-get install -y -q \
      --no-install-recommends $missing; } > "/tmp/openstack-install.$$.log" 2>&1 || {
    [[ $made_policy == 1 ]] && rm -f /usr/sbin/policy-rc.d
    tail -30 "/tmp/openstack-install.$$.log" >&2; fail "apt-get failed (log /tmp/openstack-install.$$.log)"; }
  [[ $made_policy == 1 ]] && rm -f /usr/sbin/policy-rc.d
  rm -f "/tmp/openstack-install.$$.log"
  # A package script that started a system service despite the policy: stop it. (Processes
  # of the packages' system users; never "init.d/rabbitmq-server status": its rabbitmqctl
  # starts an epmd on all addresses.)
  local u svc
  for u in mysql rabbitmq nova neutron glance cinder octavia placement; do
    pgrep -u "$u" >/dev/null 2>&1 || continue
    say "a system service of user $u is running after the install: stopping it"
    for svc in /etc/init.d/{mariadb,rabbitmq-server,nova-*,neutron-*,glance-*,cinder-*,octavia-*,placement-*}; do
      if [[ -x $svc ]]; then "$svc" stop >/dev/null 2>&1 || true; fi
    done
  done
}

start_mysql() {
  if [[ ! -d $OS_HOME/mysql/mysql ]]; then
    mariadb-install-db --defaults-file="$ETC/my.cnf" --auth-root-authentication-method=socket \
      --skip-test-db > "$LOGS/mysql-install.log" 2>&1 || fail "mariadb-install-db failed: $LOGS/mysql-install.log"
  fi
  launch mysqld
  wait_for 60 MariaDB mysql_root -e 'select 1'
  local sql="CREATE USER IF NOT EXISTS 'openstack'@'127.0.0.1' IDENTIFIED BY '$OS_DB_PASSWORD';
    GRANT ALL ON *.* TO 'openstack'@'127.0.0.1';" d
  for d in nova_api nova nova_cell0 placement glance neutron cinder octavia; do
    sql+="CREATE DATABASE IF NOT EXISTS $d CHARACTER SET utf8mb4;"
  done
  mysql_root -e "$sql"
}

start_rabbit() {
  launch epmd
  wait_for 10 epmd port_open "$OS_EPMD_PORT"
  launch rabbitmq
  wait_for 120 RabbitMQ port_open "$OS_RABBIT_PORT"
  rabbit_setup
}

rabbitmqctl_() { ( rabbit_env; nice -n 10 /usr/lib/rabbitmq/bin/rabbitmqctl -q "$@" ); }

# Once per broker (the marker lives with its data): Nova's own notification queues are
# capped (nobody reads them: the oldest go past 1,000 messages), and the controller gets a
# user that may only make queues of its own (amq.gen-*) and bind them to exchange nova.
rabbit_setup() {
  local marker="$OS_HOME/rabbitmq/mnesia/.mission-control-setup"
  [[ -f $marker ]] && return
  rabbitmqctl_ await_startup >> "$LOGS/rabbitmq-setup.log" 2>&1 || fail "RabbitMQ did not start: $LOGS/rabbitmq.log"
  {
    rabbitmqctl_ set_policy --apply-to queues notifications-cap '^versioned_notifications\.' \
      '{"max-length":1000,"overflow":"drop-head"}' &&
    { rabbitmqctl_ list_users | grep -q '^mission-control' ||
      rabbitmqctl_ add_user mission-control "$OS_BUS_PASSWORD"; } &&
    rabbitmqctl_ set_permissions -p / mission-control '^amq\.gen-.*' '^amq\.gen-.*' '^(nova|amq\.gen-.*)$'
  } >> "$LOGS/rabbitmq-setup.log" 2>&1 || fail "setting up RabbitMQ failed: $LOGS/rabbitmq-setup.log"
  touch "$marker"
}

start_keystone() {
  "$ROOT/scripts/keystone.sh" status >/dev/null 2>&1 && [[ -f $KS_HOME/demo.env ]] && return
  KS_PORT=$KS_PORT KS_HOME=$KS_HOME KS_ADMIN_PASSWORD=$KS_ADMIN_PASSWORD "$ROOT/scripts/keystone.sh" start
}

# db_sync NAME CMD...: run once (a marker file remembers success)
db_sync() {
  local name=$1; shift
  [[ -f $OS_HOME/.synced-$name ]] && return
  "$@" >> "$LOGS/db-sync-$name.log" 2>&1 || fail "db sync of $name failed: $LOGS/db-sync-$name.log"
  touch "$OS_HOME/.synced-$name"
}
nova_sync() {
  local nm=(nice -n 10 nova-manage --config-file "$ETC/nova.conf")
  "${nm[@]}" api_db sync && "${nm[@]}" cell_v2 map_cell0 && \
    { "${nm[@]}" cell_v2 list_cells | grep -q ' cell1 ' || "${nm[@]}" cell_v2 create_cell --name cell1; } && \
    "${nm[@]}" db sync
}
sync_all() {
  local pids=()
  db_sync placement nice -n 10 placement-manage --config-file "$ETC/placement.conf" db sync & pids+=($!)
  db_sync glance nice -n 10 glance-manage --config-file "$ETC/glance-api.conf" db_sync & pids+=($!)
  db_sync neutron nice -n 10 neutron-db-manage --config-file "$ETC/neutron.conf" upgrade heads & pids+=($!)
  db_sync nova nova_sync & pids+=($!)
  db_sync cinder nice -n 10 cinder-manage --config-file "$ETC/cinder.conf" db sync & pids+=($!)
  db_sync octavia nice -n 10 octavia-db-manage --config-file "$ETC/octavia.conf" upgrade head & pids+=($!)
  wait_all "${pids[@]}"
}

seed_py() {
  OS_HOME=$OS_HOME OS_REGION=$OS_REGION KS_BASE=$KS_BASE KS_HOME=$KS_HOME \
    KS_ADMIN_PASSWORD=$KS_ADMIN_PASSWORD OS_SERVICE_PASSWORD=$OS_SERVICE_PASSWORD \
    OS_USER_ROLES=$OS_USER_ROLES OS_CONTROLLER_ROLES=$OS_CONTROLLER_ROLES OS_QUOTA=$OS_QUOTA \
    OS_HOST=$OS_HOST OS_NOVA_PORT=$OS_NOVA_PORT OS_PLACEMENT_PORT=$OS_PLACEMENT_PORT \
    OS_GLANCE_PORT=$OS_GLANCE_PORT OS_NEUTRON_PORT=$OS_NEUTRON_PORT OS_CINDER_PORT=$OS_CINDER_PORT \
    OS_OCTAVIA_PORT=$OS_OCTAVIA_PORT \
    OS_BUS_URL="amqp://mission-control:$OS_BUS_PASSWORD@127.0.0.1:$OS_RABBIT_PORT/%2F" \
    "$PY" "$ROOT/scripts/openstack/seed.py" "$@"
}

start_services() {
  local s
  for s in "${SERVICES[@]:3}"; do launch "$s"; done
}

# an API answers; fails at once when its process died
api_up() { alive "$1" || fail "$1 died: tail of $LOGS/$1.log:
$(tail -15 "$LOGS/$1.log")"; http_answers "$2"; }
wait_apis() {
  local a end=$(( $(date +%s) + 180 ))
  for a in "${APIS[@]}"; do
    until api_up "${a%%:*}" "${a#*:}"; do
      (( $(date +%s) < end )) || fail "timeout waiting for ${a%%:*} on port ${a#*:} (logs: $LOGS)"
      sleep 0.2
    done
  done
}

discover_hosts() {
  [[ -f $OS_HOME/.discovered-$OS_HOST ]] && return
  nice -n 10 nova-manage --config-file "$ETC/nova.conf" cell_v2 discover_hosts >> "$LOGS/discover-hosts.log" 2>&1
  touch "$OS_HOME/.discovered-$OS_HOST"
}

configure() { write_configs; make_octavia_certs; }

# ports_free: every port of this instance is free or held by this instance's own processes;
# else one line naming the port, its holder and how to free it (two instances, e.g.
# scripts/run's in .state/openstack and scripts/test's in .state/openstack-test, share ports).
ports_free() {
  local entry port name pid pgid cmd f home
  for entry in "db:$OS_DB_PORT" "rabbitmq:$OS_RABBIT_PORT" "epmd:$OS_EPMD_PORT" "${APIS[@]}"; do
    name=${entry%%:*} port=${entry##*:}
    pid=$(ss -Hltnp "sport = :$port" 2>/dev/null | grep -o 'pid=[0-9]*' | head -1 | cut -d= -f2 || true)
    if [[ -z $pid ]]; then continue; fi
    pgid=$(ps -o pgid= -p "$pid" 2>/dev/null | tr -d ' ' || true)
    home=""
    # Each service runs in a process group of its own, its leader's pid in <home>/run/.
    for f in "$RUN"/*.pid "$ROOT"/.state/*/run/*.pid; do
      if [[ -f $f && -n $pgid && "$(cat "$f")" == "$pgid" ]]; then home=${f%/run/*}; break; fi
    done
    if [[ $home == "$OS_HOME" ]]; then continue; fi
    if [[ -n $home ]]; then
      fail "port $port ($name) is held by the OpenStack in $home: free it with OS_HOME=$home scripts/openstack.sh stop"
    fi
    cmd=$(tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null || true)
    home=$(grep -o '/[^ =]*/\.state/[^/ ]*' <<< "$cmd" | head -1 || true)
    if [[ -n $home && -d $home/run ]]; then
      fail "port $port ($name) is held by the OpenStack in $home: free it with OS_HOME=$home scripts/openstack.sh stop"
    fi
    fail "port $port ($name) is held by pid $pid (${cmd:0:80}): stop it, or move this instance (OS_*_PORT)"
  done
}

do_start() {
  [[ $EUID -eq 0 ]] || fail "run as root (the Linux bridge agent and MariaDB run as root)"
  ports_free
  step install do_install
  step configs configure
  if ! alive mysqld || ! alive rabbitmq || ! "$ROOT/scripts/keystone.sh" status >/dev/null 2>&1; then
    start_mysql & local p1=$!
    start_rabbit & local p2=$!
    start_keystone & local p3=$!
    step "mariadb+rabbitmq+keystone" wait_all $p1 $p2 $p3
  fi
  rabbit_setup
  seed_py register & local reg=$!
  step "db sync (parallel)" sync_all
  step "keystone catalog" wait $reg
  step "launch services" start_services
  step "APIs answer" wait_apis
  step "compute + agent up" seed_py wait
  step "discover hosts" discover_hosts
  step "seed" seed_py seed
  say "$(printf '%-28s' "ready (total)") $(since "$T0")  env: $OS_HOME/openstack.env"
}

# One service (kill, start-one, restart): NAME must be one of SERVICES.
known() {
  [[ -n ${1:-} && " ${SERVICES[*]} " == *" $1 "* ]] || fail "no service ${1:-(none)}; one of: ${SERVICES[*]}"
  [[ -d $RUN ]] || fail "not initialised ($OS_HOME): run start first"
}
dead() { ! alive "$1"; }
kill_one() {
  alive "$1" || { rm -f "$RUN/$1.pid"; say "$1 was not running"; return 0; }
  local pid; pid=$(cat "$RUN/$1.pid")
  kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null || true
  wait_for 10 "$1 to die" dead "$1"
  # Its workers too: one still holding the listening socket makes the restart's bind fail
  # ("Address already in use", seen with nova-api's uWSGI).
  wait_for 10 "$1's processes to end" group_gone "$pid"
  rm -f "$RUN/$1.pid"
  say "$1 killed (pid $pid)"
}
# ready NAME: it answers as after start (see start-one in the header)
ready() {
  local a
  for a in "${APIS[@]}"; do [[ ${a%%:*} == "$1" ]] && { http_answers "${a#*:}"; return; }; done
  case $1 in
    mysqld) mysql_root -e 'select 1' ;;
    epmd) port_open "$OS_EPMD_PORT" ;;
    rabbitmq) port_open "$OS_RABBIT_PORT" ;;
    *) alive "$1" ;;
  esac
}
start_one() {
  local t end=$(( $(date +%s) + 180 )); t=$(now)
  [[ $1 == rabbitmq ]] && ! alive epmd && start_one epmd
  launch "$1"
  until ready "$1" >/dev/null 2>&1; do
    alive "$1" || fail "$1 died: tail of $LOGS/$1.log:
$(tail -15 "$LOGS/$1.log")"
    (( $(date +%s) < end )) || fail "timeout waiting for $1 (logs: $LOGS)"
    sleep 0.2
  done
  case $1 in nova-compute|neutron-linuxbridge-agent) seed_py wait ;; esac
  say "$1 answers (pid $(cat "$RUN/$1.pid")) after $(since "$t")"
}

do_status() {
  local s a ok=0 port
  for s in "${SERVICES[@]}"; do
    port=""
    for a in "${APIS[@]}"; do [[ ${a%%:*} == "$s" ]] && port=${a#*:}; done
    if ! alive "$s"; then echo "$s: stopped"; ok=1
    elif [[ -n $port ]] && ! http_answers "$port"; then echo "$s: running, port $port not answering"; ok=1
    else echo "$s: running (pid $(cat "$RUN/$s.pid"))${port:+ http://127.0.0.1:$port}"; fi
  done
  return $ok
}

case "${1:-}" in
  install) step install do_install ;;
  start) mkdir -p "$RUN" "$LOGS"; do_start ;;
  stop) [[ -d $RUN ]] && stop_all; say "stopped" ;;
  status) [[ -d $RUN ]] || { echo "not initialised ($OS_HOME)"; exit 1; }; do_status ;;
  env) cat "$OS_HOME/openstack.env" ;;
  purge) [[ -d $RUN ]] && stop_all; rm -rf "$OS_HOME"; say "purged $OS_HOME" ;;
  kill) known "${2:-}"; kill_one "$2" ;;
  start-one) known "${2:-}"; start_one "$2" ;;
  restart) known "${2:-}"; stop_one "$2"; start_one "$2" ;;
  seed-load) [[ ${2:-} =~ ^[0-9]+$ ]] || fail "seed-load needs a count"; seed_py load "$2" ;;
  *) echo "usage: $0 install|start|stop|status|env|purge|kill|start-one|restart [NAME]|seed-load N" >&2
     exit 2 ;;
esac
