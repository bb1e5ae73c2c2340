#!/usr/bin/env bash
# keystone.sh — run a real OpenStack Keystone 30 (v3 API) on 127.0.0.1 for development and
# tests: PyPI install in a venv, SQLite, fernet tokens, waitress. Seeds the demo data that
# Mission Control's README and tests use.
#
# Usage: scripts/keystone.sh start|stop|status|env|purge
#   start   install the venv if missing, initialise state if missing, start, seed demo data
#   stop    stop the server of this state dir
#   status  exit 0 when running
#   env     print the demo env file (ids, users, passwords)
#   purge   stop and delete the state dir
#   install install the venv only (used by scripts/setup)
#   kubernikus REGION=URL...  list these Kubernikus APIs in the catalog (service type
#           kubernikus, public interface, one per region; regions made when missing), in
#           place of the ones listed before: how a dashboard with controller_url = "catalog"
#           finds them
#
# Tunables (env):
#   KS_PORT (5000)            port on 127.0.0.1
#   KS_HOME (.state/keystone-$KS_PORT)  state: config, DB, keys, logs, demo.env (git-ignored)
#   KS_VENV ($HOME/.cache/mission-control/keystone-venv)  shared by clones, so CI reuses it
#   KS_TOKEN_EXPIRATION (3600) token lifetime in seconds
#   KS_SHARE_HOME (unset)     serve the database and keys of another state dir (a running
#                             Keystone's), e.g. with a shorter token lifetime: its tokens are
#                             valid at both, so services checking at the other accept them.
#                             No init, no seeding; `env` prints the other's demo.env
#   KS_ADMIN_PASSWORD (admin-secret)
#
# Demo data (domain "demo"): projects demo and staging; roles kubernetes_admin,
# kubernetes_member, service; alice/alice-secret = kubernetes_admin in demo and staging;
# bob/bob-secret = kubernetes_member in demo; service user mission-control (domain Default,
# project service, role service) validates other users' tokens; admin (domain Default) is a
# Kubernikus cloud admin through project cloud_admin; alice's application credential
# mission-control-demo (project demo), its id and secret in demo.env as
# KS_ALICE_APP_CRED_ID / KS_ALICE_APP_CRED_SECRET.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
KS_PORT="${KS_PORT:-5000}"
KS_HOME="${KS_HOME:-$ROOT/.state/keystone-$KS_PORT}"
KS_VENV="${KS_VENV:-$HOME/.cache/mission-control/keystone-venv}"
KS_TOKEN_EXPIRATION="${KS_TOKEN_EXPIRATION:-3600}"
KS_ADMIN_PASSWORD="${KS_ADMIN_PASSWORD:-admin-secret}"
KS_VERSION=30.0.0
URL="http://127.0.0.1:$KS_PORT/v3"
DATA="${KS_SHARE_HOME:-$KS_HOME}"   # database and keys
PIDFILE="$KS_HOME/keystone.pid"
LOG="$KS_HOME/keystone.log"
PY="$KS_VENV/bin/python"
export PYTHONWARNINGS=ignore
export OS_KEYSTONE_CONFIG_DIR="$KS_HOME/etc"

say() { echo "[keystone:$KS_PORT] $*" >&2; }
running() { [[ -f "$PIDFILE" ]] && kill -0 "$(cat "$PIDFILE")" 2>/dev/null; }

install_venv() {
  local stamp="$KS_VENV/.mc-installed"
  if [[ -f "$stamp" ]] && [[ "$(cat "$stamp")" == "$(sha256sum < "$ROOT/scripts/keystone-constraints.txt")" ]]; then
    return
  fi
  say "installing keystone==$KS_VERSION + waitress into $KS_VENV (pinned; ~30 s)"
  mkdir -p "$(dirname "$KS_VENV")"
  [[ -x "$PY" ]] || python3 -m venv "$KS_VENV"
  "$PY" -m pip install -q --disable-pip-version-check \
    -c "$ROOT/scripts/keystone-constraints.txt" "keystone==$KS_VERSION" waitress
  sha256sum < "$ROOT/scripts/keystone-constraints.txt" > "$stamp"
}

write_config() {
  mkdir -p "$KS_HOME/etc" "$DATA/fernet-keys" "$DATA/credential-keys"
  chmod 700 "$DATA/fernet-keys" "$DATA/credential-keys"
  cat > "$KS_HOME/etc/keystone.conf" <<EOF
[DEFAULT]
debug = false
[database]
# WAL + busy timeout; waitress also runs one thread: Keystone upgrades read transactions
# to writes (failed_auth_count), which SQLite answers with "database is locked" under
# concurrency.
connection = sqlite:///$DATA/keystone.db?timeout=30
sqlite_synchronous = false
[token]
provider = fernet
expiration = $KS_TOKEN_EXPIRATION
[fernet_tokens]
key_repository = $DATA/fernet-keys
[fernet_receipts]
key_repository = $DATA/fernet-keys
[credential]
key_repository = $DATA/credential-keys
[identity]
# bcrypt cost 4: fast logins for a development identity service. Never use in production.
password_hash_rounds = 4
max_password_length = 72
[api]
response_validation = ignore
[cache]
# in-process cache (one waitress process): token validation ~3 ms instead of ~135 ms
enabled = true
backend = dogpile.cache.memory
EOF
  # oslo.config parses sys.argv when keystone's WSGI app loads; hide waitress's arguments.
  cat > "$KS_HOME/keystone_app.py" <<'EOF'
import sys
_argv, sys.argv = sys.argv, sys.argv[:1]
try:
    from keystone.wsgi.api import application  # noqa: F401
finally:
    sys.argv = _argv
EOF
}

init_db() {
  [[ -f "$KS_HOME/.initialized" ]] && return
  # A pristine DB + keys per URL is cached beside the venv: a fresh state dir is a copy.
  local tpl="$KS_VENV/state-template-$KS_PORT" stamp="$KS_VERSION $URL $KS_ADMIN_PASSWORD"
  if [[ -f "$tpl/stamp" && "$(cat "$tpl/stamp")" == "$stamp" ]]; then
    cp -a "$tpl/keystone.db" "$KS_HOME/"
    cp -a "$tpl/fernet-keys/." "$KS_HOME/fernet-keys/"
    cp -a "$tpl/credential-keys/." "$KS_HOME/credential-keys/"
    touch "$KS_HOME/.initialized"
    return
  fi
  say "initialising database and keys"
  local km=("$KS_VENV/bin/keystone-manage" --config-file "$KS_HOME/etc/keystone.conf")
  local u g; u=$(id -un); g=$(id -gn)
  "${km[@]}" db_sync >> "$KS_HOME/manage.log" 2>&1 & local p1=$!
  "${km[@]}" fernet_setup --keystone-user "$u" --keystone-group "$g" >> "$KS_HOME/manage.log" 2>&1 & local p2=$!
  "${km[@]}" credential_setup --keystone-user "$u" --keystone-group "$g" >> "$KS_HOME/manage.log" 2>&1 & local p3=$!
  if ! { wait "$p1" && wait "$p2" && wait "$p3"; }; then
    say "keystone-manage failed, see $KS_HOME/manage.log"; exit 1
  fi
  "${km[@]}" bootstrap --bootstrap-password "$KS_ADMIN_PASSWORD" \
    --bootstrap-username admin --bootstrap-project-name admin --bootstrap-role-name admin \
    --bootstrap-service-name keystone --bootstrap-region-id RegionOne \
    --bootstrap-admin-url "$URL" --bootstrap-internal-url "$URL" --bootstrap-public-url "$URL" \
    >> "$KS_HOME/manage.log" 2>&1 || { say "bootstrap failed, see $KS_HOME/manage.log"; exit 1; }
  rm -rf "$tpl" && mkdir -p "$tpl" && chmod 700 "$tpl"
  cp -a "$KS_HOME/keystone.db" "$KS_HOME/fernet-keys" "$KS_HOME/credential-keys" "$tpl/"
  echo "$stamp" > "$tpl/stamp"
  touch "$KS_HOME/.initialized"
}

start_server() {
  if running; then return; fi
  "$PY" -c "import sqlite3, sys; sqlite3.connect(sys.argv[1]).execute('PRAGMA journal_mode=WAL')" "$DATA/keystone.db"
  if curl -s -o /dev/null "http://127.0.0.1:$KS_PORT/"; then say "port $KS_PORT is busy"; exit 1; fi
  (
    cd "$KS_HOME"
    PYTHONPATH="$KS_HOME" setsid "$KS_VENV/bin/waitress-serve" --listen="127.0.0.1:$KS_PORT" \
      --threads=1 keystone_app:application >> "$LOG" 2>&1 < /dev/null &
    echo $! > "$PIDFILE"
  )
  for _ in $(seq 1 300); do
    if curl -fs -o /dev/null "$URL"; then return; fi
    if ! running; then say "server died; tail of $LOG:"; tail -20 "$LOG" >&2; exit 1; fi
    sleep 0.1
  done
  say "timeout waiting for $URL"; exit 1
}

seed() {
  KS_URL="$URL" KS_ADMIN_PASSWORD="$KS_ADMIN_PASSWORD" KS_HOME="$KS_HOME" \
    PYTHONPATH="$ROOT/scripts" "$PY" - <<'EOF'
import os
from keystone_admin import B, req, admin_token
T = admin_token()
def ensure(coll, key, name, body, query=""):
    s, _, b = req("GET", f"/{coll}?name={name}{query}", tok=T)
    if b.get(coll): return b[coll][0]["id"]
    s, _, b = req("POST", f"/{coll}", {key: body}, tok=T); assert s == 201, (coll, s, b)
    return b[key]["id"]
dom = ensure("domains", "domain", "demo", {"name": "demo", "description": "Mission Control demo"})
projects = {p: ensure("projects", "project", p, {"name": p, "domain_id": dom}, f"&domain_id={dom}")
            for p in ("demo", "staging")}
svc = ensure("projects", "project", "service", {"name": "service", "domain_id": "default"}, "&domain_id=default")
roles = {r: ensure("roles", "role", r, {"name": r}) for r in ("kubernetes_admin", "kubernetes_member", "service")}
users = {}
for u, d, p in (("alice", dom, projects["demo"]), ("bob", dom, projects["demo"]), ("mission-control", "default", svc)):
    users[u] = ensure("users", "user", u, {"name": u, "password": f"{u}-secret", "domain_id": d,
                      "default_project_id": p}, f"&domain_id={d}")
for u, p, r in (("alice", projects["demo"], "kubernetes_admin"), ("alice", projects["staging"], "kubernetes_admin"),
                ("bob", projects["demo"], "kubernetes_member"), ("mission-control", svc, "service")):
    s, _, b = req("PUT", f"/projects/{p}/users/{users[u]}/roles/{roles[r]}", tok=T); assert s == 204, (s, b)
# Kubernikus's cloud admins: project cloud_admin in domain Default (the admin user is one).
cloud = ensure("projects", "project", "cloud_admin", {"name": "cloud_admin", "domain_id": "default"}, "&domain_id=default")
admin_id = req("GET", "/users?name=admin&domain_id=default", tok=T)[2]["users"][0]["id"]
admin_role = ensure("roles", "role", "admin", {"name": "admin"})
s, _, b = req("PUT", f"/projects/{cloud}/users/{admin_id}/roles/{admin_role}", tok=T); assert s == 204, (s, b)
# One application credential of alice in project demo, for tools and CI
# (`mission-control kubeconfig`). Keystone shows a secret only once, so the one in demo.env
# is kept while it still signs in; otherwise the credential is deleted and made anew.
env_file = os.path.join(os.environ["KS_HOME"], "demo.env")
old = {}
if os.path.exists(env_file):
    for line in open(env_file):
        k, _, v = line.removeprefix("export ").strip().partition("=")
        old[k] = v.strip("'")
AC_NAME = "mission-control-demo"
ac_id, ac_secret = old.get("KS_ALICE_APP_CRED_ID"), old.get("KS_ALICE_APP_CRED_SECRET")
def ac_works(i, sec):
    body = {"auth": {"identity": {"methods": ["application_credential"],
            "application_credential": {"id": i, "secret": sec}}}}
    return req("POST", "/auth/tokens?nocatalog", body)[0] == 201
if not (ac_id and ac_secret and ac_works(ac_id, ac_secret)):
    pa = {"identity": {"methods": ["password"], "password": {"user": {"name": "alice", "domain": {"name": "demo"},
          "password": "alice-secret"}}}, "scope": {"project": {"id": projects["demo"]}}}
    s, h, b = req("POST", "/auth/tokens", {"auth": pa}); assert s == 201, (s, b)
    AT = h["X-Subject-Token"]
    creds = f"/users/{users['alice']}/application_credentials"
    for c in req("GET", f"{creds}?name={AC_NAME}", tok=AT)[2].get("application_credentials", []):
        s, _, b = req("DELETE", f"{creds}/{c['id']}", tok=AT); assert s == 204, (s, b)
    s, _, b = req("POST", creds, {"application_credential": {"name": AC_NAME,
                  "description": "Mission Control demo: CI access to project demo"}}, tok=AT)
    assert s == 201, (s, b)
    ac_id, ac_secret = b["application_credential"]["id"], b["application_credential"]["secret"]
env = {"MC_TEST_KEYSTONE_URL": B, "KS_DEMO_DOMAIN_ID": dom, "KS_DEMO_PROJECT_ID": projects["demo"],
       "KS_STAGING_PROJECT_ID": projects["staging"], "KS_ALICE_ID": users["alice"], "KS_BOB_ID": users["bob"],
       "KS_ADMIN_PASSWORD": os.environ["KS_ADMIN_PASSWORD"], "KS_SERVICE_USER": "mission-control",
       "KS_SERVICE_PASSWORD": "mission-control-secret", "KS_ALICE_APP_CRED_ID": ac_id,
       "KS_ALICE_APP_CRED_SECRET": ac_secret}
with open(env_file, "w") as f:
    f.writelines(f"export {k}='{v}'\n" for k, v in env.items())
os.chmod(env_file, 0o600)  # it holds passwords and a credential secret
EOF
}

register_kubernikus() {
  running || { say "not running: start it first"; exit 1; }
  KS_URL="$URL" KS_ADMIN_PASSWORD="$KS_ADMIN_PASSWORD" PYTHONPATH="$ROOT/scripts" \
    "$PY" - "$@" <<'EOF'
import sys
from keystone_admin import req, admin_token
wanted = dict(a.split("=", 1) for a in sys.argv[1:])
T = admin_token()
for region in wanted:
    if req("GET", f"/regions/{region}", tok=T)[0] == 404:
        s, _, b = req("POST", "/regions", {"region": {"id": region}}, tok=T); assert s == 201, (s, b)
svcs = req("GET", "/services?type=kubernikus", tok=T)[2]["services"]
if svcs:
    sid = svcs[0]["id"]
else:
    s, _, b = req("POST", "/services", {"service": {"type": "kubernikus", "name": "kubernikus"}}, tok=T)
    assert s == 201, (s, b); sid = b["service"]["id"]
for e in req("GET", f"/endpoints?service_id={sid}", tok=T)[2]["endpoints"]:
    s, _, b = req("DELETE", f"/endpoints/{e['id']}", tok=T); assert s == 204, (s, b)
for region, url in wanted.items():
    s, _, b = req("POST", "/endpoints", {"endpoint": {"service_id": sid, "interface": "public",
                  "region_id": region, "url": url}}, tok=T); assert s == 201, (s, b)
print(f"kubernikus endpoints: {wanted}")
EOF
}

stop_server() {
  if ! running; then rm -f "$PIDFILE"; return; fi
  local pid; pid=$(cat "$PIDFILE")
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  if kill -0 "$pid" 2>/dev/null; then kill -KILL "$pid" 2>/dev/null || true; fi
  rm -f "$PIDFILE"
}

case "${1:-}" in
  start)
    command -v curl >/dev/null || { say "curl is required"; exit 1; }
    if [[ -n "${KS_SHARE_HOME:-}" ]]; then
      [[ -f "$KS_SHARE_HOME/.initialized" ]] || { say "KS_SHARE_HOME $KS_SHARE_HOME has no Keystone state"; exit 1; }
      install_venv; write_config; start_server
    else
      install_venv; write_config; init_db; start_server; seed
    fi
    say "ready at $URL (pid $(cat "$PIDFILE"), token lifetime ${KS_TOKEN_EXPIRATION}s)" ;;
  install) install_venv ;;
  kubernikus) shift; register_kubernikus "$@" ;;
  stop)   stop_server ;;
  status) if running; then echo "running pid $(cat "$PIDFILE") $URL"; else echo "stopped"; exit 1; fi ;;
  env)    cat "$DATA/demo.env" ;;
  purge)  stop_server; rm -rf "$KS_HOME" ;;
  *) echo "usage: $0 start|stop|status|env|purge|install|kubernikus REGION=URL..." >&2; exit 2 ;;
esac
