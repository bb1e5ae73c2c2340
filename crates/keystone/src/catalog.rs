//! The service catalog of a token (`GET /v3/auth/catalog`) and the regional endpoints of
//! one service type in it: how the dashboard finds the Kubernikus API of every region.

use reqwest::Method;
use serde::{Deserialize, Serialize};

use crate::client::{check, Client, AUTH_TOKEN};
use crate::{Error, TokenSecret};

/// The most regions the dashboard keeps for one service type: a catalog is Keystone's and
/// trusted, but what a session stores still has a bound.
pub const MAX_REGIONS: usize = 32;

/// One service of a token's catalog.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub struct CatalogService {
    /// Service type, such as `compute` or `kubernikus`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The service's endpoints.
    #[serde(default)]
    pub endpoints: Vec<CatalogEndpoint>,
}

/// One endpoint of a catalog service.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub struct CatalogEndpoint {
    /// `public`, `internal` or `admin`.
    pub interface: String,
    /// Region id (current Keystones).
    #[serde(default)]
    pub region_id: Option<String>,
    /// Region name (older Keystones send only this).
    #[serde(default)]
    pub region: Option<String>,
    /// The endpoint's URL.
    pub url: String,
}

/// A region and the URL of one service in it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RegionalEndpoint {
    /// The region's id.
    pub region: String,
    /// The service's URL there.
    pub url: String,
}

#[derive(Deserialize)]
struct CatalogBody {
    catalog: Vec<CatalogService>,
}

impl Client {
    /// The service catalog of `token` (`GET /v3/auth/catalog`).
    pub async fn auth_catalog(&self, token: &TokenSecret) -> Result<Vec<CatalogService>, Error> {
        self.observed("auth_catalog", async {
            let resp = self
                .request(Method::GET, "auth/catalog")?
                .header(AUTH_TOKEN, token.expose())
                .send()
                .await
                .map_err(Error::from_transport)?;
            let body: CatalogBody = check(resp)
                .await?
                .json()
                .await
                .map_err(|e| Error::Decode(e.without_url().to_string()))?;
            Ok(body.catalog)
        })
        .await
    }
}

/// The endpoints of service type `kind` on `interface` in `catalog`, one per region (the
/// first listed wins), sorted by region; endpoints without a region or with a URL that is
/// not http(s) are left out, and at most [`MAX_REGIONS`] are kept.
pub fn regional_endpoints(
    catalog: &[CatalogService],
    kind: &str,
    interface: &str,
) -> Vec<RegionalEndpoint> {
    let mut found: Vec<RegionalEndpoint> = Vec::new();
    let endpoints = catalog
        .iter()
        .filter(|s| s.kind == kind)
        .flat_map(|s| &s.endpoints)
        .filter(|e| e.interface == interface);
    for e in endpoints {
        let Some(region) = e.region_id.as_ref().or(e.region.as_ref()) else {
            continue;
        };
        let web = url::Url::parse(&e.url).is_ok_and(|u| matches!(u.scheme(), "http" | "https"));
        if region.is_empty() || !web || found.iter().any(|f| &f.region == region) {
            continue;
        }
        found.push(RegionalEndpoint {
            region: region.clone(),
            url: e.url.trim_end_matches('/').to_string(),
        });
    }
    found.sort_by(|a, b| a.region.cmp(&b.region));
    found.truncate(MAX_REGIONS);
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn catalog() -> Vec<CatalogService> {
        serde_json::from_value(serde_json::json!([
            {"type": "compute", "endpoints": [
                {"interface": "public", "region_id": "RegionOne", "url": "http://nova"}]},
            {"type": "kubernikus", "endpoints": [
                {"interface": "public", "region_id": "RegionTwo", "url": "http://k2/"},
                {"interface": "internal", "region_id": "RegionOne", "url": "http://k1-int"},
                {"interface": "public", "region": "RegionOne", "url": "http://k1"},
                {"interface": "public", "region_id": "RegionTwo", "url": "http://k2-again"},
                {"interface": "public", "url": "http://nowhere"},
                {"interface": "public", "region_id": "Evil", "url": "javascript:alert(1)"}]}
        ]))
        .expect("a catalog")
    }

    #[test]
    fn one_endpoint_per_region_of_the_type_and_interface_asked_for() {
        let found = regional_endpoints(&catalog(), "kubernikus", "public");
        let pairs: Vec<(&str, &str)> = found
            .iter()
            .map(|e| (e.region.as_str(), e.url.as_str()))
            .collect();
        assert_eq!(
            pairs,
            [("RegionOne", "http://k1"), ("RegionTwo", "http://k2")]
        );
        let internal = regional_endpoints(&catalog(), "kubernikus", "internal");
        assert_eq!(internal.len(), 1);
        assert_eq!(internal[0].url, "http://k1-int");
        assert!(regional_endpoints(&catalog(), "dns", "public").is_empty());
    }
}
