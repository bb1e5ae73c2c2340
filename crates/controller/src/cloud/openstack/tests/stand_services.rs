//! The stand-in's Nova, Neutron, Glance, Cinder and Octavia: canned answers shaped like the
//! real APIs' (Nova 2.67, Neutron v2.0, Glance v2, Cinder v3, Octavia v2).

use axum::http::Method;
use axum::response::Response;
use serde_json::{json, Value};

use super::stand_state::{nova_error, reply, rfc3339, State};

/// The answer to a call to one of the services, `None` for an unknown path.
pub fn answer(
    s: &mut State,
    method: &Method,
    path: &str,
    q: &dyn Fn(&str) -> Vec<String>,
    body: Option<Value>,
) -> Option<Response> {
    if path == "/compute/v2.1/" {
        let version = json!({ "version": { "id": "v2.1", "status": "CURRENT",
            "min_version": "2.1", "version": s.nova_version } });
        return Some(reply(200, version));
    }
    if let Some(rest) = path.strip_prefix("/compute/v2.1/") {
        return nova(s, method, rest, q, body);
    }
    if let Some(rest) = path.strip_prefix("/network/v2.0/") {
        return neutron(s, method, rest, q);
    }
    if path == "/image/v2/images" {
        return Some(glance(q));
    }
    if let Some(rest) = path.strip_prefix("/volume/v3/") {
        let (_project, rest) = rest.split_once('/')?;
        return cinder(method, rest);
    }
    if let Some(rest) = path.strip_prefix("/lb/v2/lbaas/loadbalancers") {
        return Some(match (method, rest) {
            (&Method::GET, "") => reply(
                200,
                json!({ "loadbalancers": [
                    { "id": "lb1", "name": "kube_service_k1_default_ingress", "description": "",
                      "provisioning_status": "ACTIVE", "operating_status": "ONLINE", "project_id": "p1" },
                    { "id": "lb2", "name": "", "project_id": "p1",
                      "description": "Kubernetes external service web/front from cluster k2",
                      "provisioning_status": "PENDING_DELETE", "operating_status": "ONLINE" },
                    { "id": "lb3", "name": "hand-made", "description": "mine",
                      "provisioning_status": "ACTIVE", "operating_status": "ONLINE", "project_id": "p1" }
                ], "loadbalancers_links": [] }),
            ),
            (&Method::DELETE, "/lb1") => reply(204, Value::Null),
            _ => nova_error(404, "itemNotFound", "Load Balancer not found"),
        });
    }
    None
}

fn nova(
    s: &mut State,
    method: &Method,
    rest: &str,
    q: &dyn Fn(&str) -> Vec<String>,
    body: Option<Value>,
) -> Option<Response> {
    let r = match (method.clone(), rest) {
        (Method::GET, "flavors/detail") => reply(
            200,
            json!({ "flavors": [
                { "id": "f1", "name": "m1.small", "ram": 4096, "vcpus": 2, "disk": 20, "links": [] },
                { "id": "f2", "name": "m1.large", "ram": 16384, "vcpus": 8, "disk": 80, "links": [] }
            ]}),
        ),
        (Method::GET, "os-availability-zone") => reply(
            200,
            json!({ "availabilityZoneInfo": [
                { "zoneName": "az-a", "zoneState": { "available": true }, "hosts": null },
                { "zoneName": "az-down", "zoneState": { "available": false }, "hosts": null }
            ]}),
        ),
        (Method::GET, "os-keypairs") => reply(
            200,
            json!({ "keypairs": [ { "keypair": {
                "name": "ops", "public_key": "ssh-ed25519 AAAA ops", "fingerprint": "aa:bb", "type": "ssh" } } ] }),
        ),
        (Method::GET, "os-quota-sets/p1/detail") => reply(
            200,
            json!({ "quota_set": { "id": "p1",
                "instances": { "in_use": 3, "limit": 10, "reserved": 0 },
                "cores": { "in_use": 6, "limit": -1, "reserved": 0 },
                "ram": { "in_use": 12288, "limit": 51200, "reserved": 0 },
                "key_pairs": { "in_use": 0, "limit": 100, "reserved": 0 } } }),
        ),
        (Method::GET, "servers/detail") => {
            // Two per page; the next link names another host, as Nova behind a proxy does.
            let all = &s.servers;
            let start = match q("marker").first() {
                Some(m) => all.iter().position(|v| v["id"] == m.as_str())? + 1,
                None => 0,
            };
            let page: Vec<Value> = all.iter().skip(start).take(2).cloned().collect();
            let mut body = json!({ "servers": page });
            if start + 2 < all.len() {
                let last = page.last().map(|v| v["id"].clone()).unwrap_or_default();
                let href = format!(
                    "http://nova.internal:8774/v2.1/servers/detail?marker={}",
                    last.as_str().unwrap_or("")
                );
                body["servers_links"] = json!([{ "rel": "next", "href": href }]);
            }
            reply(200, body)
        }
        (Method::GET, "servers") => {
            // Brief: ids and names; `changes-since` keeps servers updated since (Nova's rule:
            // `updated_at` alone).
            let parse = |t: &str| {
                let rfc = &time::format_description::well_known::Rfc3339;
                time::OffsetDateTime::parse(t, rfc).ok()
            };
            let since = q("changes-since").first().and_then(|t| parse(t));
            let changed = |v: &Value| {
                let at = v["updated"].as_str();
                since.is_none_or(|t| at.and_then(parse).is_some_and(|at| at >= t))
            };
            let brief: Vec<Value> = s
                .servers
                .iter()
                .filter(|v| changed(v))
                .map(|v| json!({ "id": v["id"], "name": v["name"] }))
                .collect();
            reply(200, json!({ "servers": brief }))
        }
        (Method::POST, "servers") => {
            if s.quota_exceeded {
                let message = "Quota exceeded for instances: Requested 1, but already used 10 of 10 instances";
                return Some(nova_error(403, "forbidden", message));
            }
            let req = body.unwrap_or(Value::Null);
            let id = format!("new-{}", s.servers.len() + 1);
            let mut made = super::stand_state::server(
                &id,
                req["server"]["name"].as_str().unwrap_or(""),
                None,
                "BUILD",
                Some("scheduling"),
                &rfc3339(time::OffsetDateTime::now_utc()),
                "10.180.0.50",
            );
            made["metadata"] = req["server"]["metadata"].clone();
            s.servers.push(made);
            reply(
                202,
                json!({ "server": { "id": id, "adminPass": "AdminPassSecret1",
                    "OS-DCF:diskConfig": "MANUAL", "links": [],
                    "security_groups": [{ "name": "default" }] } }),
            )
        }
        (m, path) if path.starts_with("servers/") => {
            let id = path.trim_start_matches("servers/");
            let Some(i) = s.servers.iter().position(|v| v["id"] == id) else {
                let message = format!("Instance {id} could not be found.");
                return Some(nova_error(404, "itemNotFound", &message));
            };
            match m {
                Method::GET => reply(200, json!({ "server": s.servers[i] })),
                Method::DELETE => {
                    s.servers[i]["OS-EXT-STS:task_state"] = json!("deleting");
                    reply(204, Value::Null)
                }
                _ => return None,
            }
        }
        _ => return None,
    };
    Some(r)
}

fn neutron(
    s: &mut State,
    method: &Method,
    rest: &str,
    q: &dyn Fn(&str) -> Vec<String>,
) -> Option<Response> {
    let r = match (method.clone(), rest) {
        (Method::GET, "routers") => reply(
            200,
            json!({ "routers": [
                { "id": "r1", "name": "default-router", "project_id": "p1", "status": "ACTIVE",
                  "external_gateway_info": { "network_id": "ext-net", "enable_snat": true,
                    "external_fixed_ips": [{ "subnet_id": "ext-sub", "ip_address": "172.24.4.10" }] },
                  "routes": [
                    { "destination": "198.18.0.0/24", "nexthop": "10.180.0.11" },
                    { "destination": "198.18.9.0/24", "nexthop": "10.180.0.99" } ] },
                { "id": "r2", "name": "internal-only", "project_id": "p1", "status": "ACTIVE",
                  "external_gateway_info": null, "routes": [] }
            ]}),
        ),
        (Method::GET, "ports") => {
            let mut ports = vec![];
            if q("device_owner").contains(&"network:router_interface".to_string())
                && q("device_id").contains(&"r1".to_string())
            {
                ports.push(
                    json!({ "id": "port1", "device_id": "r1", "network_id": "net1",
                    "device_owner": "network:router_interface",
                    "fixed_ips": [{ "subnet_id": "sub1", "ip_address": "10.180.0.1" }] }),
                );
                if s.two_networks {
                    ports.push(
                        json!({ "id": "port2", "device_id": "r1", "network_id": "net2",
                        "device_owner": "network:router_interface", "fixed_ips": [] }),
                    );
                }
            }
            reply(200, json!({ "ports": ports }))
        }
        (Method::GET, "networks") if q("router:external") == ["true"] => reply(
            200,
            json!({ "networks": [{ "id": "ext-net", "name": "public", "router:external": true }] }),
        ),
        (Method::GET, "networks") => {
            let ids = q("id");
            let all = [("net1", "private"), ("net2", "other")];
            let nets: Vec<Value> = all
                .iter()
                .filter(|(id, _)| ids.iter().any(|i| i == id))
                .map(|(id, name)| json!({ "id": id, "name": name, "status": "ACTIVE" }))
                .collect();
            reply(200, json!({ "networks": nets }))
        }
        (Method::GET, "subnets") => {
            let ids = q("network_id");
            let subnets: Vec<Value> = [
                ("sub1", "net1", "10.180.0.0/24"),
                ("sub2", "net2", "10.9.0.0/24"),
            ]
            .iter()
            .filter(|(_, net, _)| ids.iter().any(|i| i == net))
            .map(|(id, net, cidr)| {
                json!({ "id": id, "name": format!("{id}-name"), "network_id": net,
                            "cidr": cidr, "ip_version": 4 })
            })
            .collect();
            reply(200, json!({ "subnets": subnets }))
        }
        (Method::GET, "security-groups") => reply(
            200,
            json!({ "security_groups": [
                { "id": "sg1", "name": "default", "project_id": "p1", "security_group_rules": [] },
                { "id": "sg2", "name": "lb-sg-1", "project_id": "p1", "security_group_rules": [],
                  "description": "Security Group for default/ingress Service LoadBalancer in cluster k1" } ] }),
        ),
        // The cloud controller manager's address for k1's service; a tenant's own.
        (Method::GET, "floatingips") => reply(
            200,
            json!({ "floatingips": [
                { "id": "fip1", "port_id": "vip1", "floating_ip_address": "203.0.113.7", "status": "ACTIVE",
                  "description": "Floating IP for Kubernetes external service default/ingress from cluster k1" },
                { "id": "fip2", "port_id": "vip1", "floating_ip_address": "203.0.113.8",
                  "status": "ACTIVE", "description": "reserved for k1" } ] }),
        ),
        (Method::DELETE, "floatingips/fip1") => reply(204, Value::Null),
        (Method::PUT, "routers/r1/remove_extraroutes") => {
            reply(200, json!({ "router": { "id": "r1", "routes": [] } }))
        }
        _ => return None,
    };
    Some(r)
}

fn glance(q: &dyn Fn(&str) -> Vec<String>) -> Response {
    let all = [
        (
            "i1",
            "flatcar-stable-amd64",
            "active",
            "2026-01-01T00:00:00Z",
        ),
        (
            "i2",
            "flatcar-stable-amd64",
            "active",
            "2026-03-01T00:00:00Z",
        ),
        ("i3", "ubuntu-24.04-amd64", "active", "2026-02-01T00:00:00Z"),
        ("i4", "half-uploaded", "queued", "2026-02-01T00:00:00Z"),
    ];
    let status = q("status");
    let name = q("name");
    let matching: Vec<_> = all
        .iter()
        .filter(|(_, n, st, _)| status.iter().all(|s| s == st) && name.iter().all(|x| x == n))
        .collect();
    // One image per page, `next` relative to the endpoint's root, as Glance sends it.
    let start = match q("marker").first() {
        Some(m) => matching
            .iter()
            .position(|i| i.0 == m.as_str())
            .map_or(0, |p| p + 1),
        None => 0,
    };
    let page: Vec<Value> = matching
        .iter()
        .skip(start)
        .take(1)
        .map(|(id, n, st, created)| {
            json!({ "id": id, "name": n, "status": st, "visibility": "public", "created_at": created })
        })
        .collect();
    let mut body = json!({ "images": page, "first": "/v2/images", "schema": "/v2/schemas/images" });
    if let Some(last) = matching.get(start).filter(|_| start + 1 < matching.len()) {
        body["next"] = json!(format!("/v2/images?status=active&marker={}", last.0));
        if let Some(n) = name.first() {
            body["next"] = json!(format!(
                "/v2/images?name={n}&status=active&marker={}",
                last.0
            ));
        }
    }
    reply(200, body)
}

fn cinder(method: &Method, rest: &str) -> Option<Response> {
    Some(match (method.clone(), rest) {
        (Method::GET, "volumes/detail") => reply(
            200,
            json!({ "volumes": [
                { "id": "v1", "name": "pv-1f2e", "status": "available", "size": 1,
                  "metadata": { "cinder.csi.openstack.org/cluster": "k1",
                                "csi.storage.k8s.io/pvc/name": "data" } },
                { "id": "v2", "name": "", "status": "deleting", "size": 1,
                  "metadata": { "kluster": "k2" } },
                { "id": "v3", "name": "backup", "status": "available", "size": 5, "metadata": {} }
            ]}),
        ),
        (Method::GET, "types") => reply(
            200,
            json!({ "volume_types": [
                { "id": "vt1", "name": "standard", "is_public": true, "extra_specs": {} },
                { "id": "vt2", "name": "secret-tier", "is_public": false, "extra_specs": {} }
            ]}),
        ),
        (Method::DELETE, "volumes/v1") => reply(202, Value::Null),
        _ => return None,
    })
}
