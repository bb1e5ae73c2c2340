//! The service catalog of a token (Keystone's `GET /v3/auth/catalog`) and the endpoint of
//! each service the provider calls, by service type, region and interface.

use serde::Deserialize;
use url::Url;

use super::config::Interface;
use crate::cloud::CloudError;

/// The OpenStack services the provider calls.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Service {
    /// Nova.
    Compute,
    /// Neutron.
    Network,
    /// Glance.
    Image,
    /// Cinder (v3 API).
    Volume,
    /// Octavia.
    LoadBalancer,
    /// Keystone, called at the configured auth URL (not looked up in the catalog).
    Identity,
}

impl Service {
    /// Catalog service types that name it, preferred first.
    pub fn types(self) -> &'static [&'static str] {
        match self {
            Service::Compute => &["compute"],
            Service::Network => &["network"],
            Service::Image => &["image"],
            Service::Volume => &["volumev3", "block-storage", "volume"],
            Service::LoadBalancer => &["load-balancer"],
            Service::Identity => &["identity"],
        }
    }

    /// The project's name (Nova, Neutron, …), for messages.
    pub fn label(self) -> &'static str {
        match self {
            Service::Compute => "Nova",
            Service::Network => "Neutron",
            Service::Image => "Glance",
            Service::Volume => "Cinder",
            Service::LoadBalancer => "Octavia",
            Service::Identity => "Keystone",
        }
    }

    /// The API version path segment added when the catalog's URL names none.
    fn version(self) -> &'static str {
        match self {
            Service::Compute => "v2.1",
            Service::Network => "v2.0",
            Service::Image => "v2",
            Service::Volume => "v3",
            Service::LoadBalancer => "v2",
            Service::Identity => "v3",
        }
    }
}

// A catalog's services and endpoints are the identity client's types (the dashboard reads
// the same catalog for regions): one definition of their JSON.
pub use keystone::{CatalogEndpoint as Endpoint, CatalogService as Entry};

/// A token's service catalog.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
pub struct Catalog {
    /// The services.
    #[serde(rename = "catalog", default)]
    pub entries: Vec<Entry>,
}

impl Catalog {
    /// The base URL of `service` in `region` (empty: any) for `interface`, ending in `/`
    /// and naming the API version. Fails naming the service type and the region when the
    /// catalog has no such endpoint.
    pub fn endpoint(
        &self,
        service: Service,
        region: &str,
        interface: Interface,
    ) -> Result<Url, CloudError> {
        let in_region = |e: &Endpoint| {
            region.is_empty()
                || e.region_id.as_deref() == Some(region)
                || e.region.as_deref() == Some(region)
        };
        let found = service.types().iter().find_map(|t| {
            self.entries
                .iter()
                .filter(|s| s.kind == *t)
                .flat_map(|s| s.endpoints.iter())
                .find(|e| e.interface == interface.as_str() && in_region(e))
        });
        let Some(endpoint) = found else {
            let types = service.types();
            let alternatives = if types.len() > 1 {
                format!(" (or {})", types[1..].join(", "))
            } else {
                String::new()
            };
            let region = if region.is_empty() { "any" } else { region };
            return Err(CloudError::new(format!(
                "The service catalog has no {interface} endpoint of service type {}{alternatives} \
                 in region {region}",
                types[0]
            )));
        };
        versioned(&endpoint.url, service.version()).map_err(|e| {
            CloudError::new(format!(
                "The catalog's {} endpoint {:?} is not a URL: {e}",
                service.types()[0],
                endpoint.url
            ))
        })
    }
}

/// `raw` as a base URL ending in `/`, with `version` appended when no path segment names a
/// version (`v2`, `v2.1`, …) yet.
fn versioned(raw: &str, version: &str) -> Result<Url, url::ParseError> {
    let mut url = Url::parse(raw)?;
    if url.cannot_be_a_base() {
        return Err(url::ParseError::RelativeUrlWithCannotBeABaseBase);
    }
    let segments: Vec<String> = url
        .path()
        .split('/')
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect();
    let has_version = segments.iter().any(|s| {
        let mut chars = s.chars();
        chars.next() == Some('v') && chars.next().is_some_and(|c| c.is_ascii_digit())
    });
    let mut path = segments.join("/");
    if !has_version {
        if !path.is_empty() {
            path.push('/');
        }
        path.push_str(version);
    }
    url.set_path(&format!("/{path}/"));
    Ok(url)
}
