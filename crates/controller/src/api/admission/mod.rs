//! Admission of a new kluster, without I/O: schema validation, Kubernikus's defaults, the
//! version check, the name clash, the pick of a free default pod range and the CIDR clashes
//! with the control plane, the project's klusters on the same router and the router's own
//! static routes.

use axum::http::StatusCode;
use kluster::{net::Cidr, ErrorReason, Kluster, KlusterPhase, KlusterStatus};

use super::{ApiError, ApiSettings};
use crate::cloud::RouterRoute;

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
    place(prepare(k, settings)?, others, &[], settings, project)
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

/// Prepared kluster `k` placed among the project's klusters `others` and the static
/// `routes` of the project's routers: its name must be free, it gets the next free default
/// pod range on its router when it has none, its ranges must not clash; then its status is
/// Pending.
pub fn place(
    mut k: Kluster,
    others: &[Kluster],
    routes: &[RouterRoute],
    settings: &ApiSettings,
    project: &str,
) -> Result<Kluster, ApiError> {
    if others.iter().any(|o| o.name == k.name) {
        return Err(ApiError::name_taken(&k.name));
    }
    let clash = |k: &Kluster| {
        conflict(k, others, routes, &settings.reserved_cidrs).map(|(field, m)| {
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
                conflict(&candidate, others, routes, &settings.reserved_cidrs).is_none()
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

/// The first CIDR clash of `k`: with the control plane's ranges, the project's klusters on
/// its router ([`cidr_conflict`]), then a static route on its router (a kluster without
/// router is compared with all routers).
fn conflict(
    k: &Kluster,
    others: &[Kluster],
    routes: &[RouterRoute],
    reserved: &[String],
) -> Option<(&'static str, String)> {
    if let Some(c) = cidr_conflict(k, others, reserved) {
        return Some(c);
    }
    let cluster = k.spec.cluster_cidr.as_deref().and_then(Cidr::parse)?;
    let router = &k.spec.openstack.router_id;
    routes
        .iter()
        .filter(|r| router.is_empty() || *router == r.router)
        .find(|r| Cidr::parse(&r.destination).is_some_and(|d| cluster.overlaps(d)))
        .map(|r| {
            ("spec.clusterCIDR", format!(
                "clusterCIDR {} overlaps the route to {} (next hop {}) on router {}; choose another range",
                k.spec.cluster_cidr.as_deref().unwrap_or_default(),
                r.destination,
                r.nexthop,
                r.router
            ))
        })
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
mod tests;
