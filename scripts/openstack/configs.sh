# configs.sh — configuration files of the test OpenStack, sourced by scripts/openstack.sh
# (which defines every variable used here). write_configs writes them all under $ETC.
# shellcheck shell=bash

# [keystone_authtoken] / [service_user] / client sections: password auth as service user $1
# in project "service" of domain Default.
auth_section() {
  cat <<EOF
auth_url = $KS_BASE
auth_type = password
user_domain_name = Default
project_domain_name = Default
project_name = service
username = $1
password = $OS_SERVICE_PASSWORD
region_name = $OS_REGION
EOF
}

authtoken() {
  cat <<EOF
[keystone_authtoken]
www_authenticate_uri = $KS_BASE
service_token_roles_required = true
$(auth_section "$1")
EOF
}

db() { echo "mysql+pymysql://openstack:$OS_DB_PASSWORD@127.0.0.1:$OS_DB_PORT/$1?charset=utf8"; }

common_default() {
  cat <<EOF
[DEFAULT]
debug = $OS_DEBUG
host = $OS_HOST
transport_url = rabbit://guest:guest@127.0.0.1:$OS_RABBIT_PORT/
EOF
}
# Nova sends versioned notifications (exchange nova, versioned_notifications.info/.error),
# as an operator turns them on for the controller's reader; every other service sends none.
common_tail() {
  local driver=noop
  [[ $1 == nova ]] && driver=messagingv2
  cat <<EOF
[oslo_messaging_notifications]
driver = $driver
[oslo_concurrency]
lock_path = $OS_HOME/lock/$1
EOF
}

# uwsgi for one WSGI API: one process (UWSGI_PROCESSES), loopback only. Every response says
# "Connection: close": uwsgi's http-socket does not keep connections alive, and clients with
# a connection pool would otherwise reuse a connection the server already dropped.
uwsgi_ini() { # name port wsgi-file [extra lines]
  cat > "$ETC/$1-uwsgi.ini" <<EOF
[uwsgi]
plugins = python3
http-socket = 127.0.0.1:$2
add-header = Connection: close
wsgi-file = $3
master = true
processes = ${UWSGI_PROCESSES:-1}
threads = 1
enable-threads = true
lazy-apps = true
die-on-term = true
need-app = true
buffer-size = 65535
chdir = $OS_HOME
${4:-}
EOF
}

write_configs() {
  mkdir -p "$ETC" "$OS_HOME"/{lock,logs,run,glance-images,glance-staging,glance-tasks,nova,neutron,cinder,octavia-certs}

  cat > "$ETC/my.cnf" <<EOF
[mysqld]
datadir = $OS_HOME/mysql
socket = $OS_HOME/run/mysql.sock
pid-file = $OS_HOME/mysql/mariadbd.pid
log-error = $OS_HOME/logs/mysqld.log
bind-address = 127.0.0.1
port = $OS_DB_PORT
user = root
skip-name-resolve
skip-log-bin
performance-schema = OFF
max_connections = 1000
innodb_buffer_pool_size = 128M
innodb_flush_log_at_trx_commit = 0
innodb_doublewrite = 0
character-set-server = utf8mb4
collation-server = utf8mb4_general_ci
EOF

  mkdir -p "$OS_HOME/rabbitmq"
  cat > "$OS_HOME/rabbitmq/rabbitmq.conf" <<EOF
listeners.tcp.default = 127.0.0.1:$OS_RABBIT_PORT
loopback_users.guest = true
log.file.level = warning
vm_memory_high_watermark.absolute = 512MiB
disk_free_limit.absolute = 50MB
EOF
  echo "[]." > "$OS_HOME/rabbitmq/enabled_plugins"
  : > "$OS_HOME/rabbitmq/rabbitmq-env.conf"

  cat > "$ETC/placement.conf" <<EOF
$(common_default)
[api]
auth_strategy = keystone
[placement_database]
connection = $(db placement)
$(authtoken placement)
$(common_tail placement)
EOF
  uwsgi_ini placement "$OS_PLACEMENT_PORT" /usr/bin/placement-api "env = OS_PLACEMENT_CONFIG_DIR=$ETC"

  cat > "$ETC/glance-api.conf" <<EOF
$(common_default)
bind_host = 127.0.0.1
bind_port = $OS_GLANCE_PORT
workers = 0
enabled_backends = file:file
[database]
connection = $(db glance)
[glance_store]
default_backend = file
[file]
filesystem_store_datadir = $OS_HOME/glance-images
[os_glance_staging_store]
filesystem_store_datadir = $OS_HOME/glance-staging
[os_glance_tasks_store]
filesystem_store_datadir = $OS_HOME/glance-tasks
[paste_deploy]
flavor = keystone
config_file = /etc/glance/glance-api-paste.ini
$(authtoken glance)
$(common_tail glance)
EOF

  cat > "$ETC/neutron.conf" <<EOF
$(common_default)
bind_host = 127.0.0.1
bind_port = $OS_NEUTRON_PORT
api_workers = 0
rpc_workers = 1
rpc_state_report_workers = 0
core_plugin = ml2
service_plugins = router
auth_strategy = keystone
allow_overlapping_ips = true
notify_nova_on_port_status_changes = true
notify_nova_on_port_data_changes = true
api_paste_config = /etc/neutron/api-paste.ini
state_path = $OS_HOME/neutron
[experimental]
linuxbridge = true
[agent]
root_helper = env
report_interval = 10
[database]
connection = $(db neutron)
$(authtoken neutron)
[nova]
$(auth_section nova)
[ml2]
type_drivers = local,flat
tenant_network_types = local
mechanism_drivers = linuxbridge
extension_drivers = port_security
[ml2_type_flat]
flat_networks = *
[linux_bridge]
physical_interface_mappings =
[vxlan]
enable_vxlan = false
[securitygroup]
firewall_driver = noop
enable_security_group = true
$(common_tail neutron)
EOF

  cat > "$ETC/nova.conf" <<EOF
$(common_default)
my_ip = 127.0.0.1
state_path = $OS_HOME/nova
compute_driver = fake.FakeDriver
enabled_apis = osapi_compute
osapi_compute_listen = 127.0.0.1
osapi_compute_listen_port = $OS_NOVA_PORT
osapi_compute_workers = 1
[api]
auth_strategy = keystone
[wsgi]
api_paste_config = /etc/nova/api-paste.ini
[api_database]
connection = $(db nova_api)
[database]
connection = $(db nova)
[conductor]
workers = 1
[scheduler]
workers = 1
discover_hosts_in_cells_interval = -1
[vnc]
enabled = false
$(authtoken nova)
[service_user]
send_service_user_token = true
$(auth_section nova)
[placement]
$(auth_section placement)
valid_interfaces = public
[neutron]
$(auth_section neutron)
valid_interfaces = public
[glance]
region_name = $OS_REGION
valid_interfaces = public
[cinder]
os_region_name = $OS_REGION
catalog_info = volumev3::publicURL
[notifications]
notification_format = versioned
notify_on_state_change = vm_and_task_state
$(common_tail nova)
EOF
  # nova-compute reaches the databases only through nova-conductor: without this it tries the
  # API database at start and logs "No DB access allowed in nova-compute".
  printf '[api_database]\nconnection =\n[database]\nconnection =\n' > "$ETC/nova-compute.conf"
  # Nova's API takes two processes, DevStack's least (API_WORKERS): with one, every request
  # waits for the one before it, and a detailed listing (which asks Neutron for security
  # groups) holds up the deletes and creates sent beside it.
  UWSGI_PROCESSES=2 uwsgi_ini nova-api "$OS_NOVA_PORT" /usr/bin/nova-api-wsgi \
    "env = OS_NOVA_CONFIG_DIR=$ETC
env = OS_NOVA_CONFIG_FILES=nova-api-paste.ini;nova.conf"
  # nova-api-wsgi loads its paste pipeline from the first of OS_NOVA_CONFIG_FILES
  ln -sf /etc/nova/api-paste.ini "$ETC/nova-api-paste.ini"

  cat > "$ETC/cinder.conf" <<EOF
$(common_default)
my_ip = 127.0.0.1
state_path = $OS_HOME/cinder
auth_strategy = keystone
enabled_backends = fake
api_paste_config = /etc/cinder/api-paste.ini
glance_api_servers = http://127.0.0.1:$OS_GLANCE_PORT
[database]
connection = $(db cinder)
$(authtoken cinder)
[fake]
volume_driver = cinder.tests.fake_driver.FakeLoggingVolumeDriver
volume_backend_name = fake
$(common_tail cinder)
EOF
  uwsgi_ini cinder-api "$OS_CINDER_PORT" /usr/bin/cinder-wsgi "pyargv = --config-file $ETC/cinder.conf"

  local c="$OS_HOME/octavia-certs"
  cat > "$ETC/octavia.conf" <<EOF
$(common_default)
[api_settings]
bind_host = 127.0.0.1
bind_port = $OS_OCTAVIA_PORT
auth_strategy = keystone
default_provider_driver = amphora
enabled_provider_drivers = amphora:The Octavia Amphora driver (noop drivers here)
[database]
connection = $(db octavia)
$(authtoken octavia)
[service_auth]
$(auth_section octavia)
[controller_worker]
workers = 1
amphora_driver = amphora_noop_driver
compute_driver = compute_noop_driver
network_driver = network_noop_driver
image_driver = image_noop_driver
volume_driver = volume_noop_driver
loadbalancer_topology = SINGLE
client_ca = $c/ca.pem
[certificates]
cert_manager = local_cert_manager
cert_generator = local_cert_generator
ca_certificate = $c/ca.pem
ca_private_key = $c/ca.key
ca_private_key_passphrase = $OS_OCTAVIA_CA_PASSPHRASE
server_certs_key_passphrase = insecure-key-do-not-use-this-key
[haproxy_amphora]
client_cert = $c/client.pem
server_ca = $c/ca.pem
[oslo_messaging]
topic = octavia_prov
$(common_tail octavia)
EOF
  uwsgi_ini octavia-api "$OS_OCTAVIA_PORT" /usr/bin/octavia-wsgi "pyargv = --config-file $ETC/octavia.conf"
}

# CA + client certificate for Octavia (the noop drivers never use them, but the worker and
# API read them). The CA key is encrypted: Octavia refuses an empty passphrase.
make_octavia_certs() {
  local c="$OS_HOME/octavia-certs"
  [[ -f "$c/client.pem" ]] && return
  (
    cd "$c" || exit 1
    openssl genrsa -aes256 -passout "pass:$OS_OCTAVIA_CA_PASSPHRASE" -out ca.key 2048
    openssl req -x509 -new -key ca.key -passin "pass:$OS_OCTAVIA_CA_PASSPHRASE" -days 3650 \
      -subj "/CN=mission-control-test-octavia-ca" -out ca.pem
    openssl req -new -newkey rsa:2048 -nodes -keyout client.key -subj "/CN=octavia-client" -out client.csr
    openssl x509 -req -in client.csr -CA ca.pem -CAkey ca.key -passin "pass:$OS_OCTAVIA_CA_PASSPHRASE" \
      -CAcreateserial -days 3650 -out client.crt
    cat client.crt client.key > client.pem
  ) >/dev/null 2>&1
}
