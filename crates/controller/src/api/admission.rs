//! Admission of a new kluster, without I/O: schema validation, Kubernikus's defaults, the
//! version check, the name clash, the pick of a free default pod range and the CIDR clashes
//! with the control plane and the project's klusters on the same router.

use axum::http::StatusCode;
use kluster::{net::Cidr, ErrorReason, Kluster, KlusterPhase, KlusterStatus};

use super::{ApiError, ApiSettings};

/// The kluster to store for create request `k` in `project`, whose klusters are `others`;
/// or the refusal (422 for a bad request or version, 409 for a name or range clash), with
/// its typed reason and the fields at fault: [`prepare`], then [`place`].
#[cfg(test)]
pub fn admit(
    k: Kluster,
    others: &[Kluster],
    settings: &ApiSettings,
    project: &str,
) -> Result<Kluster, ApiError> {
    place(prepare(k, settings)?, others, settings, project)
}

/// Create request `k` validated, with Kubernikus's defaults and an available version; its
/// pod range stays unset (`None`) when the request gave none, for [`place`] to pick.
pub fn prepare(mut k: Kluster, settings: &ApiSettings) -> Result<Kluster, ApiError> {
    kluster::validate::kluster(&k).map_err(ApiError::invalid)?;
    let pod_range_given = k
        .spec
        .cluster_cidr
        .as_deref()
        .is_some_and(|c| !c.is_empty());
    kluster::defaults::fill(&mut k, &settings.default_version);
    if !pod_range_given && !k.spec.no_cloud {
        k.spec.cluster_cidr = None;
    }
    if !settings.available_versions.is_empty()
        && !settings.available_versions.contains(&k.spec.version)
    {
        let why = format!(
            "{} is not available; choose one of {}",
            k.spec.version,
            settings.available_versions.join(", ")
        );
        return Err(
            ApiError::unprocessable(format!("spec.version: {why}")).on_field("spec.version", why)
        );
    }
    Ok(k)
}

/// Prepared kluster `k` placed among the project's klusters `others`: its name must be
/// free, it gets the next free default pod range on its router when it has none, its
/// ranges must not clash; then its status is Pending.
pub fn place(
    mut k: Kluster,
    others: &[Kluster],
    settings: &ApiSettings,
    project: &str,
) -> Result<Kluster, ApiError> {
    if others.iter().any(|o| o.name == k.name) {
        return Err(ApiError::name_taken(&k.name));
    }
    let clash = |k: &Kluster| {
        cidr_conflict(k, others, &settings.reserved_cidrs).map(|(field, m)| {
            ApiError::new(StatusCode::CONFLICT, m.clone())
                .because(ErrorReason::CidrOverlap)
                .on_field(field, m)
        })
    };
    if k.spec.cluster_cidr.is_none() && !k.spec.no_cloud {
        // The service range is the user's: its clash is said as such, before any default
        // pod range is looked for.
        if let Some(e) = clash(&k) {
            return Err(e);
        }
        // The default pod range is taken on this router: use the next free /16 of
        // 100.100.0.0–100.127.255.255, so that klusters created with defaults never clash.
        let free = DEFAULT_POD_RANGES
            .map(|n| format!("100.{n}.0.0/16"))
            .find(|c| {
                let mut candidate = k.clone();
                candidate.spec.cluster_cidr = Some(c.clone());
                cidr_conflict(&candidate, others, &settings.reserved_cidrs).is_none()
            });
        let Some(free) = free else {
            return Err(no_free_default_range(&k.spec.openstack.router_id));
        };
        k.spec.cluster_cidr = Some(free);
    }
    if let Some(e) = clash(&k) {
        return Err(e);
    }
    k.status = KlusterStatus {
        phase: KlusterPhase::Pending,
        apiserver: format!(
            "https://{}-{}.{}",
            k.name, project, settings.apiserver_domain
        ),
        ..Default::default()
    };
    Ok(k)
}

/// The second octets of the default pod ranges `100.<n>.0.0/16`, handed out in turn.
const DEFAULT_POD_RANGES: std::ops::RangeInclusive<u8> = 100..=127;

/// 409 for a create that asked for a default pod range on a router where all are taken:
/// says so (instead of naming a range the user never chose) and what to do.
fn no_free_default_range(router: &str) -> ApiError {
    let (first, last) = (DEFAULT_POD_RANGES.start(), DEFAULT_POD_RANGES.end());
    let count = last - first + 1;
    let on = match router {
        "" => "this project's routers".to_string(),
        r => format!("router {r}"),
    };
    let why = format!(
        "no free default pod range is left on {on}: all {count} default ranges (100.{first}.0.0/16 to 100.{last}.0.0/16) are used by klusters there. Give this kluster its own pod range (spec.clusterCIDR, one no kluster on the router uses, e.g. from 10.0.0.0/8), create it on another router, or delete a kluster on this router you no longer need"
    );
    ApiError::new(StatusCode::CONFLICT, format!("spec.clusterCIDR: {why}"))
        .because(ErrorReason::CidrOverlap)
        .on_field("spec.clusterCIDR", why)
}

/// The first CIDR clash of `k` with the control plane's ranges or with the project's
/// klusters on the same router (a kluster without router is compared with all): the
/// field's JSON path and the message.
fn cidr_conflict(
    k: &Kluster,
    others: &[Kluster],
    reserved: &[String],
) -> Option<(&'static str, String)> {
    let service = Cidr::parse(&k.spec.service_cidr);
    let cluster = k.spec.cluster_cidr.as_deref().and_then(Cidr::parse);
    for r in reserved {
        let Some(rc) = Cidr::parse(r) else { continue };
        for (field, c) in [("serviceCIDR", service), ("clusterCIDR", cluster)] {
            if c.is_some_and(|c| c.overlaps(rc)) {
                let path = if field == "serviceCIDR" {
                    "spec.serviceCIDR"
                } else {
                    "spec.clusterCIDR"
                };
                return Some((
                    path,
                    format!("{field} overlaps the control plane's range {r}"),
                ));
            }
        }
    }
    let cluster = cluster?;
    let router = &k.spec.openstack.router_id;
    for o in others {
        let orouter = &o.spec.openstack.router_id;
        if !(router.is_empty() || orouter.is_empty() || router == orouter) {
            continue;
        }
        if let Some(oc) = o.spec.cluster_cidr.as_deref().and_then(Cidr::parse) {
            if cluster.overlaps(oc) {
                return Some(("spec.clusterCIDR", format!(
                    "clusterCIDR {} overlaps the clusterCIDR of kluster {:?} on the same router; choose another range",
                    k.spec.cluster_cidr.as_deref().unwrap_or_default(),
                    o.name
                )));
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(name: &str, cidr: Option<&str>, router: &str) -> Kluster {
        let mut k = Kluster {
            name: name.into(),
            ..Default::default()
        };
        k.spec.cluster_cidr = cidr.map(String::from);
        k.spec.openstack.router_id = router.into();
        k
    }

    fn admitted(name: &str, cidr: Option<&str>, others: &[Kluster]) -> Kluster {
        admit(
            request(name, cidr, ""),
            others,
            &ApiSettings::default(),
            "p1",
        )
        .unwrap()
    }

    fn refused(k: Kluster, others: &[Kluster], settings: &ApiSettings) -> (u16, String) {
        let e = admit(k, others, settings, "p1").unwrap_err();
        (e.status.as_u16(), e.message)
    }

    /// The refusal's reason and the paths of the fields it names.
    fn typed(k: Kluster, others: &[Kluster]) -> (Option<ErrorReason>, Vec<String>) {
        let e = admit(k, others, &ApiSettings::default(), "p1").unwrap_err();
        (e.reason, e.fields.into_iter().map(|f| f.path).collect())
    }

    #[test]
    fn defaults_pending_status_and_the_apiserver_url() {
        let k = admitted("a", None, &[]);
        assert_eq!(k.spec.cluster_cidr.as_deref(), Some("100.100.0.0/16"));
        assert_eq!(k.spec.version, ApiSettings::default().default_version);
        assert_eq!(k.status.phase, KlusterPhase::Pending);
        assert_eq!(
            k.status.apiserver,
            "https://a-p1.kluster.mission-control.local"
        );
    }

    #[test]
    fn default_pod_ranges_skip_the_ones_taken_on_the_router() {
        let a = admitted("a", None, &[]);
        let b = admitted("b", None, std::slice::from_ref(&a));
        assert_eq!(b.spec.cluster_cidr.as_deref(), Some("100.101.0.0/16"));
        let c = admitted("c", None, &[a, b]);
        assert_eq!(c.spec.cluster_cidr.as_deref(), Some("100.102.0.0/16"));
        // On another router the first range is free again.
        let mut elsewhere = admitted("x", None, &[]);
        elsewhere.spec.openstack.router_id = "r2".into();
        let d = admit(
            request("d", None, "r1"),
            &[elsewhere],
            &ApiSettings::default(),
            "p1",
        )
        .unwrap();
        assert_eq!(d.spec.cluster_cidr.as_deref(), Some("100.100.0.0/16"));
    }

    #[test]
    fn a_router_without_a_free_default_range_says_so_and_what_to_do() {
        let settings = ApiSettings::default();
        let mut others = Vec::new();
        for n in DEFAULT_POD_RANGES {
            let k = admit(
                request(&format!("k{n}"), None, "r1"),
                &others,
                &settings,
                "p1",
            );
            others.push(k.unwrap());
        }
        let (status, m) = refused(request("full", None, "r1"), &others, &settings);
        assert_eq!(status, 409);
        assert!(
            m.starts_with("spec.clusterCIDR: no free default pod range is left on router r1: all 28 default ranges (100.100.0.0/16 to 100.127.0.0/16)"),
            "{m}"
        );
        assert!(m.contains("Give this kluster its own pod range"), "{m}");
        assert!(
            !m.contains("overlaps"),
            "no range the user never chose: {m}"
        );
        // An own range still fits; so does another router.
        assert!(admit(
            request("own", Some("10.9.0.0/16"), "r1"),
            &others,
            &settings,
            "p1"
        )
        .is_ok());
        assert!(admit(request("r2", None, "r2"), &others, &settings, "p1").is_ok());
    }

    #[test]
    fn clashes_are_409_and_bad_requests_422_in_words() {
        let settings = ApiSettings::default();
        let a = admitted("a", Some("10.1.0.0/16"), &[]);
        let (status, m) = refused(request("a", None, ""), std::slice::from_ref(&a), &settings);
        assert_eq!(
            (status, m.as_str()),
            (409, "A kluster named \"a\" already exists")
        );
        let (status, m) = refused(request("b", Some("10.1.128.0/17"), ""), &[a], &settings);
        assert_eq!(status, 409);
        assert!(
            m.contains("overlaps the clusterCIDR of kluster \"a\""),
            "{m}"
        );
        let (status, m) = refused(request("b", Some("198.19.1.0/24"), ""), &[], &settings);
        assert_eq!(status, 409);
        assert!(
            m.contains("overlaps the control plane's range 198.19.0.0/16"),
            "{m}"
        );
        let mut old = request("b", None, "");
        old.spec.version = "1.20.0".into();
        let (status, m) = refused(old, &[], &settings);
        assert_eq!(status, 422);
        assert!(
            m.starts_with("spec.version: 1.20.0 is not available"),
            "{m}"
        );
        let (status, m) = refused(request("Bad_Name", None, ""), &[], &settings);
        assert_eq!(status, 422);
        assert!(m.starts_with("name: "), "{m}");
    }

    #[test]
    fn refusals_say_why_and_which_field_in_types() {
        let a = admitted("a", Some("10.1.0.0/16"), &[]);
        let one = std::slice::from_ref(&a);
        let f = |p: &[&str]| p.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            typed(request("a", None, ""), one),
            (Some(ErrorReason::NameTaken), f(&["name"]))
        );
        assert_eq!(
            typed(request("b", Some("10.1.128.0/17"), ""), one),
            (Some(ErrorReason::CidrOverlap), f(&["spec.clusterCIDR"]))
        );
        let mut service = request("c", None, "");
        service.spec.service_cidr = "198.19.0.0/17".into();
        assert_eq!(
            typed(service, &[]),
            (Some(ErrorReason::CidrOverlap), f(&["spec.serviceCIDR"]))
        );
        let mut old = request("b", None, "");
        old.spec.version = "1.20.0".into();
        assert_eq!(
            typed(old, &[]),
            (Some(ErrorReason::Validation), f(&["spec.version"]))
        );
        let mut bad = request("Bad_Name", None, "");
        bad.spec.node_pools.push(kluster::NodePool {
            name: "p".into(),
            size: 500,
            flavor: "m1.small".into(),
            availability_zone: "az-a".into(),
            ..Default::default()
        });
        assert_eq!(
            typed(bad, &[]),
            (
                Some(ErrorReason::Validation),
                f(&["name", "spec.nodePools[0].size"])
            )
        );
    }
}
