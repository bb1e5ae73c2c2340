//! The "Specification" card of a kluster: versions, CIDRs, OpenStack ids, SSH key
//! fingerprint and API server.

use leptos::prelude::*;

use crate::components::style::{H2, MUTED, SECTION};

/// What a person reads for an id the controller picks when it is left empty.
fn or_auto(v: &str) -> String {
    if v.is_empty() {
        "chosen automatically".to_string()
    } else {
        v.to_string()
    }
}

/// The kluster's spec (and running version) as label/value pairs.
pub fn facts(k: &kluster::Kluster, ssh_fingerprint: &str) -> Vec<(&'static str, String)> {
    let s = &k.spec;
    let or = |v: &str, empty: &str| {
        if v.is_empty() {
            empty.to_string()
        } else {
            v.to_string()
        }
    };
    vec![
        ("Version (wanted)", s.version.clone()),
        ("Version (running)", or(&k.status.version, "not yet")),
        ("Service CIDR", s.service_cidr.clone()),
        ("Pod CIDR", s.cluster_cidr.clone().unwrap_or_default()),
        ("Router", or_auto(&s.openstack.router_id)),
        ("Network", or_auto(&s.openstack.network_id)),
        ("Load-balancer subnet", or_auto(&s.openstack.lb_subnet_id)),
        ("Security group", or_auto(&s.openstack.security_group_name)),
        ("SSH key", or(ssh_fingerprint, "none")),
        ("Audit log", s.audit.clone().unwrap_or_else(|| "off".into())),
        (
            "Load-balancer floating IPs from",
            or(
                &s.openstack.lb_floating_network_id,
                "the router's external network",
            ),
        ),
        ("API server", k.status.apiserver.clone()),
    ]
}

/// The specification card.
#[component]
pub fn Specification(
    /// The facts to show, from [`facts`].
    facts: Vec<(&'static str, String)>,
) -> impl IntoView {
    view! {
        <section aria-labelledby="spec-h" class=SECTION>
            <h2 id="spec-h" class=H2>"Specification"</h2>
            <dl class="mt-3 grid grid-cols-1 gap-x-6 gap-y-2 text-sm sm:grid-cols-2">
                {facts.into_iter().map(|(label, value)| view! {
                    <div class="min-w-0">
                        <dt class=MUTED>{label}</dt>
                        <dd class="break-all font-mono">{value}</dd>
                    </div>
                }).collect_view()}
            </dl>
        </section>
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn empty_ids_read_as_automatic_and_missing_things_say_so() {
        let mut k = kluster::Kluster::default();
        k.spec.openstack.router_id = "r-1".into();
        let facts = super::facts(&k, "");
        let get = |l: &str| {
            facts
                .iter()
                .find(|(label, _)| *label == l)
                .map(|(_, v)| v.as_str())
        };
        assert_eq!(get("Router"), Some("r-1"));
        assert_eq!(get("Network"), Some("chosen automatically"));
        assert_eq!(get("Version (running)"), Some("not yet"));
        assert_eq!(get("SSH key"), Some("none"));
    }
}
