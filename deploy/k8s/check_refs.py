"""deploy/k8s/check_refs.py: what the schemas cannot see in deploy/k8s. Every reference between
the manifests resolves (Secrets, ConfigMaps, keys, volumes, Services, ports, selectors), each
Deployment has the probes, resources, PodDisruptionBudget and hardening the deployment relies
on, the dashboard's Leptos.toml has only keys the server knows and paths that exist in the
image and the pod, and the controller's variables are ones kubernikus-controller reads.
Run by deploy/k8s/check (needs PyYAML; Python >= 3.11 for tomllib). Prints "N passed, N failed".
"""

import glob
import os
import re
import sys
import tomllib

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
FAILURES, WARNINGS, PASSED = [], [], [0]


def expect(cond, what):
    if cond:
        PASSED[0] += 1
    else:
        FAILURES.append(what)


def load():
    objs = []
    for path in sorted(glob.glob(os.path.join(HERE, "*.yaml"))):
        if os.path.basename(path) == "kustomization.yaml":
            continue
        with open(path) as f:
            for doc in yaml.safe_load_all(f):
                if doc:
                    doc["_file"] = os.path.basename(path)
                    objs.append(doc)
    return objs


def index(objs, kind):
    return {o["metadata"]["name"]: o for o in objs if o["kind"] == kind}


def matches(selector, labels):
    return bool(selector) and all(labels.get(k) == v for k, v in selector.items())


CONTROLLER_SETTINGS = "crates/controller-settings/src/lib.rs"


def settings_keys():
    """The dashboard's configuration keys: the fields of `struct Settings` and of the
    controller's settings it flattens (`struct ControllerSettings`)."""
    keys = set()
    for path, struct in (("server/src/config/settings.rs", "pub struct Settings"),
                         (CONTROLLER_SETTINGS, "pub struct ControllerSettings")):
        with open(os.path.join(ROOT, path)) as f:
            text = f.read()
        body = text[text.index(struct):]
        body = body[:body.index("\n}\n")]
        keys |= set(re.findall(r"pub (\w+): Option<", body))
    return keys


def controller_env_names():
    """The variables the standalone controller reads: its own flags' and its settings'."""
    names = set()
    for path in ("crates/controller/src/main.rs", CONTROLLER_SETTINGS):
        with open(os.path.join(ROOT, path)) as f:
            names |= set(re.findall(r'env = "(MC_[A-Z_]+)"', f.read()))
    return names


def container_paths():
    """Destinations of the Containerfile's COPY lines and its WORKDIR."""
    with open(os.path.join(ROOT, "deploy/Containerfile")) as f:
        text = f.read()
    copies = dict(re.findall(r"^COPY (\S+) (\S+)$", text, re.M))
    return copies, re.findall(r"^WORKDIR (\S+)$", text, re.M)


def under(path, mounts):
    return any(path == m or path.startswith(m.rstrip("/") + "/") for m in mounts)


def check_deployment(d, objs):
    name = d["metadata"]["name"]
    spec, pod = d["spec"], d["spec"]["template"]["spec"]
    labels = d["spec"]["template"]["metadata"]["labels"]
    expect(matches(spec["selector"]["matchLabels"], labels), f"{name}: selector matches its pods")
    expect(spec.get("replicas", 1) >= 2, f"{name}: at least 2 replicas")
    roll = spec.get("strategy", {}).get("rollingUpdate", {})
    expect(roll.get("maxUnavailable") == 0, f"{name}: rolling updates keep every replica (maxUnavailable 0)")
    sc = pod.get("securityContext", {})
    expect(sc.get("runAsNonRoot") is True and sc.get("runAsUser", 0) != 0, f"{name}: runs as non-root")
    expect(pod.get("automountServiceAccountToken") is False, f"{name}: no service account token")
    volumes = {v["name"]: v for v in pod.get("volumes", [])}
    secrets, configmaps = index(objs, "Secret"), index(objs, "ConfigMap")
    for v in volumes.values():
        if "secret" in v:
            s = secrets.get(v["secret"]["secretName"])
            expect(s is not None, f"{name}: volume {v['name']} names a Secret in secrets.example.yaml")
            for item in v["secret"].get("items", []):
                expect(s is not None and item["key"] in s.get("stringData", {}),
                       f"{name}: Secret key {item['key']} exists")
        if "configMap" in v:
            expect(v["configMap"]["name"] in configmaps, f"{name}: volume {v['name']} names a ConfigMap")
    for c in pod["containers"]:
        cname = f"{name}/{c['name']}"
        ports = {p["name"]: p["containerPort"] for p in c.get("ports", [])}
        for probe, path in (("livenessProbe", "/healthz"), ("readinessProbe", "/readyz")):
            get = c.get(probe, {}).get("httpGet", {})
            expect(get.get("path") == path and get.get("port") in ports,
                   f"{cname}: {probe} is GET {path} on a declared port")
        res = c.get("resources", {})
        expect({"cpu", "memory"} <= set(res.get("requests", {})) and "memory" in res.get("limits", {}),
               f"{cname}: cpu and memory requests, a memory limit")
        csc = c.get("securityContext", {})
        expect(csc.get("readOnlyRootFilesystem") is True and csc.get("allowPrivilegeEscalation") is False
               and csc.get("capabilities", {}).get("drop") == ["ALL"], f"{cname}: hardened container")
        mounts = {m["mountPath"]: m["name"] for m in c.get("volumeMounts", [])}
        for m, vol in mounts.items():
            expect(vol in volumes, f"{cname}: mount {m} names a volume")
        writable = [m for m, vol in mounts.items() if "emptyDir" in volumes.get(vol, {})]
        expect(under("/tmp", writable), f"{cname}: /tmp is writable (emptyDir)")
        for e in c.get("env", []):
            ref = e.get("valueFrom", {}).get("secretKeyRef")
            if ref:
                s = secrets.get(ref["name"])
                expect(s is not None and ref["key"] in s.get("stringData", {}),
                       f"{cname}: env {e['name']} names an existing Secret key ({ref['name']}/{ref['key']})")
        for ef in c.get("envFrom", []):
            if "configMapRef" in ef:
                expect(ef["configMapRef"]["name"] in configmaps, f"{cname}: envFrom names a ConfigMap")
        c["_mounts"], c["_writable"], c["_ports"], c["_volumes"] = mounts, writable, ports, volumes
    pdbs = [p for p in objs if p["kind"] == "PodDisruptionBudget" and matches(p["spec"]["selector"]["matchLabels"], labels)]
    expect(len(pdbs) == 1 and pdbs[0]["spec"].get("minAvailable", 0) >= 1, f"{name}: one PodDisruptionBudget keeping a replica")
    services = [s for s in objs if s["kind"] == "Service" and matches(s["spec"]["selector"], labels)]
    expect(len(services) == 1, f"{name}: one Service selects its pods")
    for s in services:
        for p in s["spec"]["ports"]:
            expect(p["targetPort"] in pod["containers"][0]["_ports"], f"{name}: Service port {p['name']} targets a container port")


def secret_file(container, path, secrets):
    """Whether `path` is a file of a Secret volume mounted in `container`."""
    for mount, vol in container["_mounts"].items():
        v = container["_volumes"].get(vol, {})
        if "secret" in v and path.startswith(mount.rstrip("/") + "/"):
            rel = path[len(mount.rstrip("/")) + 1:]
            s = secrets.get(v["secret"]["secretName"], {})
            items = v["secret"].get("items")
            keys = [i["path"] for i in items] if items else list(s.get("stringData", {}))
            return rel in keys
    return False


def check_dashboard_config(objs, dash):
    c = dash["spec"]["template"]["spec"]["containers"][0]
    env = {e["name"]: e for e in c.get("env", [])}
    config_path = env.get("MC_CONFIG", {}).get("value", "")
    cm_name = None
    for mount, vol in c["_mounts"].items():
        v = c["_volumes"].get(vol, {})
        if "configMap" in v and config_path.startswith(mount.rstrip("/") + "/"):
            cm_name = v["configMap"]["name"]
            key = config_path[len(mount.rstrip("/")) + 1:]
    cm = index(objs, "ConfigMap").get(cm_name)
    expect(cm is not None and key in cm["data"], "dashboard: MC_CONFIG is a file of a mounted ConfigMap")
    if cm is None:
        return
    toml = tomllib.loads(cm["data"][key])
    unknown = set(toml) - settings_keys()
    expect(not unknown, f"dashboard: Leptos.toml keys the server knows (unknown: {sorted(unknown)})")
    expect("session_store" not in toml and "MC_SESSION_STORE" in env,
           "dashboard: the session store URL comes from a Secret, not the ConfigMap")
    expect(toml.get("site_addr", "").endswith(":3000") and c["_ports"].get("http") == 3000,
           "dashboard: listens on the declared port")
    copies, _ = container_paths()
    expect(toml.get("site_root", "").rstrip("/") + "/" == copies.get("site/"), "dashboard: site_root is where the image has the site")
    expect(under(toml.get("data_dir", ""), c["_writable"]), "dashboard: data_dir lies in an emptyDir")
    expect(secret_file(c, toml.get("session_key_file", ""), index(objs, "Secret")),
           "dashboard: session_key_file is a mounted Secret file")
    url = toml.get("controller_url", "")
    m = re.match(r"http://([a-z0-9-]+):(\d+)$", url)
    svc = index(objs, "Service").get(m.group(1)) if m else None
    expect(svc is not None and any(p["port"] == int(m.group(2)) for p in svc["spec"]["ports"]),
           f"dashboard: controller_url {url} is the controller Service and port")
    expect(bool(toml.get("trusted_proxies")), "dashboard: trusted_proxies names the ingress controller's network")


def check_controller_env(objs, ctl):
    c = ctl["spec"]["template"]["spec"]["containers"][0]
    names = {e["name"] for e in c.get("env", [])}
    for ef in c.get("envFrom", []):
        cm = index(objs, "ConfigMap").get(ef.get("configMapRef", {}).get("name"), {})
        names |= set(cm.get("data", {}))
        data = cm.get("data", {})
        ca = data.get("MC_CONTROLLER_CA_KEY_FILE", "")
        expect(secret_file(c, ca, index(objs, "Secret")), "controller: MC_CONTROLLER_CA_KEY_FILE is a mounted Secret file")
        listen = data.get("MC_CONTROLLER_LISTEN", "")
        expect(listen.startswith("0.0.0.0:") and int(listen.rsplit(":", 1)[1]) == c["_ports"].get("http"),
               "controller: listens on all addresses at the declared port")
    known = controller_env_names() | {"RUST_LOG"}
    for n in sorted(names - known):
        WARNINGS.append(f"controller: {n} is read by neither main.rs nor the controller's settings")
    expect("MC_CONTROLLER_SERVICE_PASSWORD" in names, "controller: the service password is set (from a Secret)")


def check_ingress(objs):
    services = index(objs, "Service")
    streams = {"/events/stream": False, "/api/v1/events/stream": False}
    for ing in (o for o in objs if o["kind"] == "Ingress"):
        ann = ing["metadata"].get("annotations", {})
        expect(ann.get("nginx.ingress.kubernetes.io/proxy-next-upstream") == "error timeout",
               f"ingress {ing['metadata']['name']}: fails over on connection errors only")
        for rule in ing["spec"]["rules"]:
            for p in rule["http"]["paths"]:
                b = p["backend"]["service"]
                svc = services.get(b["name"])
                expect(svc is not None and any(sp["name"] == b["port"].get("name") for sp in svc["spec"]["ports"]),
                       f"ingress {ing['metadata']['name']}: backend {b['name']} is a Service port")
                if p["path"] in streams:
                    streams[p["path"]] = (p["pathType"] == "Exact"
                                          and ann.get("nginx.ingress.kubernetes.io/proxy-buffering") == "off"
                                          and int(ann.get("nginx.ingress.kubernetes.io/proxy-read-timeout", 0)) >= 600)
    for path, ok in streams.items():
        expect(ok, f"ingress: {path} is unbuffered with a long read timeout")


def check_kustomization():
    with open(os.path.join(HERE, "kustomization.yaml")) as f:
        k = yaml.safe_load(f)
    for r in k["resources"]:
        expect(os.path.exists(os.path.join(HERE, r)), f"kustomization: {r} exists")
    expect("secrets.example.yaml" not in k["resources"], "kustomization: the example Secrets are not applied")


def main():
    objs = load()
    deployments = index(objs, "Deployment")
    for d in deployments.values():
        check_deployment(d, objs)
    check_dashboard_config(objs, deployments["mission-control-dashboard"])
    check_controller_env(objs, deployments["mission-control-controller"])
    check_ingress(objs)
    check_kustomization()
    for w in WARNINGS:
        print(f"warning: {w}")
    for f in FAILURES:
        print(f"FAIL {f}")
    print(f"k8s references: {PASSED[0]} passed, {len(FAILURES)} failed")
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
