"""Keystone catalog and seed data of the test OpenStack (scripts/openstack.sh), over the REST
APIs. Idempotent: finds by name before it creates.

  seed.py register  service users, roles, services + endpoints, grants for the demo users
  seed.py wait      until nova-compute is up and the Linux bridge agent is alive
  seed.py seed      flavors, public image, external network, per-project network + router,
                    Nova quotas; writes $OS_HOME/openstack.env
"""
import datetime
import json
import os
import sys
import time
import urllib.error
import urllib.request

E = os.environ
KS = E["KS_BASE"] + "/v3"
REGION = E["OS_REGION"]
P = lambda name: f"http://127.0.0.1:{E[name]}"  # noqa: E731
URLS = {
    "compute": P("OS_NOVA_PORT") + "/v2.1",
    "placement": P("OS_PLACEMENT_PORT"),
    "network": P("OS_NEUTRON_PORT"),
    "image": P("OS_GLANCE_PORT"),
    "volumev3": P("OS_CINDER_PORT") + "/v3/$(project_id)s",
    "load-balancer": P("OS_OCTAVIA_PORT"),
}
SERVICES = [  # (service user + service name, type)
    ("nova", "compute"), ("placement", "placement"), ("neutron", "network"),
    ("glance", "image"), ("cinder", "volumev3"), ("octavia", "load-balancer"),
]
FLAVORS = [("m1.small", 1, 2048, 20), ("m1.medium", 2, 4096, 40), ("m1.large", 4, 8192, 80)]
# A flavor no host can place (it requires a trait no resource provider has): Nova's
# "No valid host was found", as a full zone answers, for the capacity-error tests.
UNPLACEABLE = ("mc.unplaceable", 1, 2048, 20)
UNPLACEABLE_SPECS = {"trait:CUSTOM_MC_NOWHERE": "required"}
IMAGE = "flatcar-stable"
DEFAULT_IMAGE = "flatcar-stable-amd64"   # kluster::defaults::IMAGE
KLUSTER_USER_DOMAIN = "kubernikus"       # where klusters' own users are made
EXTERNAL = "FloatingIP-external"
PROJECT_CIDRS = {"demo": "10.180.0.0/24", "staging": "10.181.0.0/24"}


def req(method, url, body=None, tok=None, headers=None, data=None, ok=(200, 201, 202, 204)):
    h = {"Connection": "close", "Accept": "application/json"}
    if body is not None:
        h["Content-Type"] = "application/json"
        data = json.dumps(body).encode()
    if tok:
        h["X-Auth-Token"] = tok
    h.update(headers or {})
    r = urllib.request.Request(url, data=data, method=method, headers=h)
    try:
        with urllib.request.urlopen(r, timeout=60) as resp:
            raw = resp.read()
            status, hdrs = resp.status, resp.headers
    except urllib.error.HTTPError as e:
        status, hdrs, raw = e.code, e.headers, e.read()
    if ok and status not in ok:
        sys.exit(f"{method} {url} -> {status}: {raw[:500]!r}")
    try:
        return status, hdrs, json.loads(raw) if raw else {}
    except ValueError:
        return status, hdrs, {"raw": raw.decode(errors="replace")}


def token(user, password, domain="Default", project=None, project_domain="Default", project_id=None):
    scope = {"project": {"id": project_id}} if project_id else \
        {"project": {"name": project, "domain": {"name": project_domain}}}
    body = {"auth": {"identity": {"methods": ["password"], "password": {"user": {
        "name": user, "domain": {"name": domain}, "password": password}}}, "scope": scope}}
    _, h, _ = req("POST", KS + "/auth/tokens?nocatalog", body)
    return h["X-Subject-Token"]


def admin_token():
    return token("admin", E["KS_ADMIN_PASSWORD"], project="admin")


def demo_env():
    env = {}
    for line in open(os.path.join(E["KS_HOME"], "demo.env")):
        k, _, v = line.removeprefix("export ").strip().partition("=")
        env[k] = v.strip("'")
    return env


def ks_ensure(T, coll, key, query, body):
    b = req("GET", f"{KS}/{coll}?{query}", tok=T)[2]
    if b.get(coll):
        return b[coll][0]
    return req("POST", f"{KS}/{coll}", {key: body}, tok=T)[2][key]


def grant(T, project, user, role):
    req("PUT", f"{KS}/projects/{project}/users/{user}/roles/{role}", tok=T)


def register():
    T = admin_token()
    roles = {r: ks_ensure(T, "roles", "role", f"name={r}", {"name": r})["id"]
             for r in ("admin", "member", "reader", "service", "load-balancer_member", "network_admin")}
    if not req("GET", f"{KS}/regions/{REGION}", tok=T, ok=None)[0] == 200:
        req("POST", f"{KS}/regions", {"region": {"id": REGION}}, tok=T)
    ks_ensure(T, "domains", "domain", f"name={KLUSTER_USER_DOMAIN}",
              {"name": KLUSTER_USER_DOMAIN, "description": "Mission Control: klusters' own users"})
    svc_project = ks_ensure(T, "projects", "project", "name=service&domain_id=default",
                            {"name": "service", "domain_id": "default"})["id"]
    for user, stype in SERVICES:
        u = ks_ensure(T, "users", "user", f"name={user}&domain_id=default",
                      {"name": user, "domain_id": "default", "password": E["OS_SERVICE_PASSWORD"]})
        req("PATCH", f"{KS}/users/{u['id']}", {"user": {"password": E["OS_SERVICE_PASSWORD"]}}, tok=T)
        for r in ("admin", "service"):
            grant(T, svc_project, u["id"], roles[r])
        s = ks_ensure(T, "services", "service", f"type={stype}", {"name": user, "type": stype})
        eps = req("GET", f"{KS}/endpoints?service_id={s['id']}", tok=T)[2]["endpoints"]
        for iface in ("public", "internal"):
            mine = [e for e in eps if e["interface"] == iface and e["region_id"] == REGION]
            if not mine:
                req("POST", f"{KS}/endpoints", {"endpoint": {"service_id": s["id"], "interface": iface,
                    "region_id": REGION, "url": URLS[stype]}}, tok=T)
            elif mine[0]["url"] != URLS[stype]:
                req("PATCH", f"{KS}/endpoints/{mine[0]['id']}", {"endpoint": {"url": URLS[stype]}}, tok=T)
    # The demo users: roles the OpenStack services' default policies look for.
    d = demo_env()
    users = {"alice": d["KS_ALICE_ID"], "bob": d["KS_BOB_ID"]}
    mc = req("GET", f"{KS}/users?name=mission-control&domain_id=default", tok=T)[2]["users"][0]["id"]
    for r in E["OS_USER_ROLES"].split():
        for u, p in (("alice", "KS_DEMO_PROJECT_ID"), ("alice", "KS_STAGING_PROJECT_ID"), ("bob", "KS_DEMO_PROJECT_ID")):
            grant(T, d[p], users[u], ks_ensure(T, "roles", "role", f"name={r}", {"name": r})["id"])
    for r in E["OS_CONTROLLER_ROLES"].split():
        for p in ("KS_DEMO_PROJECT_ID", "KS_STAGING_PROJECT_ID"):
            grant(T, d[p], mc, ks_ensure(T, "roles", "role", f"name={r}", {"name": r})["id"])


def since(timestamp, process):
    """Whether a UTC timestamp of the API is not older than the start of the process."""
    if not timestamp:
        return False
    started = int(os.stat(os.path.join(E["OS_HOME"], "run", process + ".pid")).st_mtime)
    ts = datetime.datetime.fromisoformat(timestamp.replace(" ", "T").split(".")[0])
    return ts.replace(tzinfo=datetime.timezone.utc).timestamp() >= started


def wait():
    T, deadline = admin_token(), time.time() + 240
    nova, neutron = URLS["compute"], URLS["network"]
    while True:
        s = req("GET", f"{nova}/os-services?binary=nova-compute&host={E['OS_HOST']}", tok=T, ok=None)[2]
        a = req("GET", f"{neutron}/v2.0/agents?agent_type=Linux+bridge+agent&host={E['OS_HOST']}",
                tok=T, ok=None)[2]
        rp = req("GET", f"{URLS['placement']}/resource_providers?name={E['OS_HOST']}", tok=T, ok=None)[2]
        # reported since the process started (a heartbeat from before a restart looks "up" too)
        up = [x for x in s.get("services", []) if x["state"] == "up" and since(x["updated_at"], "nova-compute")]
        alive = [x for x in a.get("agents", []) if x["alive"]
                 and since(x["heartbeat_timestamp"], "neutron-linuxbridge-agent")]
        if up and alive and rp.get("resource_providers"):
            return
        if time.time() > deadline:
            sys.exit(f"nova-compute up: {bool(up)}, agent alive: {bool(alive)}, "
                     f"resource provider: {bool(rp.get('resource_providers'))} (see {E['OS_HOME']}/logs)")
        time.sleep(0.5)


def find(url, coll, T, **q):
    qs = "&".join(f"{k}={v}" for k, v in q.items())
    return req("GET", f"{url}?{qs}", tok=T)[2][coll]


def seed():
    T = admin_token()
    d = demo_env()
    nova, glance, net = URLS["compute"], URLS["image"], URLS["network"] + "/v2.0"
    env = {"MC_TEST_OS_AUTH_URL": KS, "MC_TEST_OS_REGION": REGION}
    env.update({f"MC_TEST_OS_{t.upper().replace('-', '_')}_URL": u for t, u in URLS.items()})
    have = {f["name"] for f in req("GET", f"{nova}/flavors/detail?is_public=None", tok=T)[2]["flavors"]}
    for name, vcpus, ram, disk in FLAVORS:
        if name not in have:
            req("POST", f"{nova}/flavors", {"flavor": {"name": name, "vcpus": vcpus, "ram": ram, "disk": disk}}, tok=T)
    env["MC_TEST_OS_FLAVOR"] = FLAVORS[0][0]
    name, vcpus, ram, disk = UNPLACEABLE
    if name not in have:
        f = req("POST", f"{nova}/flavors", {"flavor": {"name": name, "vcpus": vcpus, "ram": ram, "disk": disk}},
                tok=T)[2]["flavor"]
        req("POST", f"{nova}/flavors/{f['id']}/os-extra_specs", {"extra_specs": UNPLACEABLE_SPECS}, tok=T)
    env["MC_TEST_OS_UNPLACEABLE_FLAVOR"] = name

    # IMAGE for the tests, and the Kubernikus API's default image name, which the dashboard's
    # create form leaves in place.
    for name in (IMAGE, DEFAULT_IMAGE):
        imgs = find(f"{glance}/v2/images", "images", T, name=name)
        img = imgs[0] if imgs else req("POST", f"{glance}/v2/images", {"name": name, "disk_format": "qcow2",
                                       "container_format": "bare", "visibility": "public"}, tok=T)[2]
        if img["status"] == "queued":
            req("PUT", f"{glance}/v2/images/{img['id']}/file", tok=T, data=b"not a real flatcar image\n" * 64,
                headers={"Content-Type": "application/octet-stream"})
        if name == IMAGE:
            env.update(MC_TEST_OS_IMAGE=IMAGE, MC_TEST_OS_IMAGE_ID=img["id"])

    ext = find(f"{net}/networks", "networks", T, name=EXTERNAL)
    ext = ext[0] if ext else req("POST", f"{net}/networks", {"network": {
        "name": EXTERNAL, "router:external": True, "provider:network_type": "flat",
        "provider:physical_network": "public"}}, tok=T)[2]["network"]
    if not find(f"{net}/subnets", "subnets", T, network_id=ext["id"]):
        req("POST", f"{net}/subnets", {"subnet": {"name": EXTERNAL + "-subnet", "network_id": ext["id"],
            "ip_version": 4, "cidr": "203.0.113.0/24", "gateway_ip": "203.0.113.1", "enable_dhcp": False,
            "allocation_pools": [{"start": "203.0.113.10", "end": "203.0.113.250"}]}}, tok=T)
    env.update(MC_TEST_OS_EXTERNAL_NETWORK=EXTERNAL, MC_TEST_OS_EXTERNAL_NETWORK_ID=ext["id"])

    quota = {k: int(v) for k, v in (kv.split("=") for kv in E["OS_QUOTA"].split())}
    for pname, cidr in PROJECT_CIDRS.items():
        pid, P = d[f"KS_{pname.upper()}_PROJECT_ID"], pname.upper()
        n, sn, r, sg = project_network(T, pname, pid, cidr, ext["id"], quota,
                                       token("alice", "alice-secret", domain="demo", project_id=pid))
        env.update({f"MC_TEST_OS_{P}_PROJECT_ID": pid, f"MC_TEST_OS_{P}_NETWORK_ID": n,
                    f"MC_TEST_OS_{P}_SUBNET_ID": sn, f"MC_TEST_OS_{P}_ROUTER_ID": r,
                    f"MC_TEST_OS_{P}_SECURITY_GROUP_ID": sg})
    env.update(MC_TEST_OS_ADMIN_USER="admin", MC_TEST_OS_ADMIN_PASSWORD=E["KS_ADMIN_PASSWORD"],
               MC_TEST_OS_ADMIN_PROJECT="admin", MC_TEST_OS_USER="alice", MC_TEST_OS_PASSWORD="alice-secret",
               MC_TEST_OS_USER_DOMAIN="demo", MC_TEST_OS_SERVICE_PASSWORD=E["OS_SERVICE_PASSWORD"],
               MC_TEST_OS_QUOTA=E["OS_QUOTA"], MC_TEST_OS_USER_ROLES=E["OS_USER_ROLES"],
               MC_TEST_OS_CONTROLLER_ROLES=E["OS_CONTROLLER_ROLES"], MC_TEST_OS_HOST=E["OS_HOST"],
               MC_TEST_OS_HOME=E["OS_HOME"], MC_TEST_OS_NOTIFICATIONS_URL=E["OS_BUS_URL"],
               MC_TEST_OS_KS_HOME=E["KS_HOME"])
    path = os.path.join(E["OS_HOME"], "openstack.env")
    with open(path, "w") as f:
        f.writelines(f"export {k}='{v}'\n" for k, v in env.items())
    os.chmod(path, 0o600)


def project_network(T, pname, pid, cidr, ext, quota, user_token):
    """Project pid's network, subnet and router (on the external network ext) like a
    tenant's, its Nova quota; the ids of the four and of its "default" security group."""
    net, nova = URLS["network"] + "/v2.0", URLS["compute"]
    n = find(f"{net}/networks", "networks", T, name=f"{pname}-network", project_id=pid)
    n = n[0] if n else req("POST", f"{net}/networks", {"network": {"name": f"{pname}-network",
                           "project_id": pid}}, tok=T)[2]["network"]
    sn = find(f"{net}/subnets", "subnets", T, network_id=n["id"])
    sn = sn[0] if sn else req("POST", f"{net}/subnets", {"subnet": {"name": f"{pname}-subnet",
        "network_id": n["id"], "project_id": pid, "ip_version": 4, "cidr": cidr,
        "dns_nameservers": []}}, tok=T)[2]["subnet"]
    r = find(f"{net}/routers", "routers", T, name=f"{pname}-router", project_id=pid)
    r = r[0] if r else req("POST", f"{net}/routers", {"router": {"name": f"{pname}-router",
        "project_id": pid, "external_gateway_info": {"network_id": ext}}}, tok=T)[2]["router"]
    if not find(f"{net}/ports", "ports", T, device_id=r["id"], network_id=n["id"]):
        req("PUT", f"{net}/routers/{r['id']}/add_router_interface", {"subnet_id": sn["id"]}, tok=T)
    # Neutron makes the project's "default" security group when the project first looks.
    sgs = find(f"{net}/security-groups", "security_groups", user_token, name="default", project_id=pid)
    req("PUT", f"{nova}/os-quota-sets/{pid}", {"quota_set": quota}, tok=T)
    return n["id"], sn["id"], r["id"], sgs[0]["id"] if sgs else ""


def load():
    """seed.py load N: projects load0 .. load<N-1> in domain demo for the idle-load
    benchmark, each a tenant's like demo's (network, router, quota for 12 m1.small), with
    user "loader" (password loader-secret) as member and kubernetes_admin (Nova and the
    Kubernikus API let it in) and the controller's roles; the demo
    users get nothing here, so the suite's projects stay as they are. Prints the ids."""
    T, d, count = admin_token(), demo_env(), int(sys.argv[2])
    domain = d["KS_DEMO_DOMAIN_ID"]
    user = ks_ensure(T, "users", "user", f"name=loader&domain_id={domain}",
                     {"name": "loader", "domain_id": domain, "password": "loader-secret"})
    mc = req("GET", f"{KS}/users?name=mission-control&domain_id=default", tok=T)[2]["users"][0]["id"]
    role = lambda r: ks_ensure(T, "roles", "role", f"name={r}", {"name": r})["id"]  # noqa: E731
    ext = find(URLS["network"] + "/v2.0/networks", "networks", T, name=EXTERNAL)[0]["id"]
    quota = {"instances": 12, "cores": 12, "ram": 12 * 2048}
    for i in range(count):
        name = f"load{i}"
        pid = ks_ensure(T, "projects", "project", f"name={name}&domain_id={domain}",
                        {"name": name, "domain_id": domain})["id"]
        for r in ("member", "kubernetes_admin"):
            grant(T, pid, user["id"], role(r))
        for r in E["OS_CONTROLLER_ROLES"].split():
            grant(T, pid, mc, role(r))
        project_network(T, name, pid, f"10.190.{i}.0/24", ext, quota,
                        token("loader", "loader-secret", domain="demo", project_id=pid))
        print(name, pid)


if __name__ == "__main__":
    {"register": register, "wait": wait, "seed": seed, "load": load}[sys.argv[1]]()
