//! Nova's microversion, negotiated once from its version document (`GET` on the compute
//! endpoint): the newest the provider speaks ([`WANTED`]) when Nova has it, else Nova's
//! newest, never below [`FLOOR`] (server tags on create). An older Nova is told so in one
//! sentence instead of answering 406 to every call.

use reqwest::Method;
use serde_json::Value;

use super::auth::Scope;
use super::catalog::Service;
use super::http::Api;
use crate::cloud::CloudError;

/// The microversion the provider is written for.
pub const WANTED: (u32, u32) = (2, 67);

/// The oldest it works with: 2.52 adds tags to a server create.
pub const FLOOR: (u32, u32) = (2, 52);

/// `2.67` as `(2, 67)`.
pub fn parse(v: &str) -> Option<(u32, u32)> {
    let (major, minor) = v.trim().split_once('.')?;
    Some((major.parse().ok()?, minor.parse().ok()?))
}

/// The microversion to speak given Nova's version document, or why none will do.
pub fn choose(doc: &Value) -> Result<String, String> {
    let version = doc.get("version").unwrap_or(doc);
    let newest = version
        .get("version")
        .and_then(Value::as_str)
        .and_then(parse);
    let oldest = version
        .get("min_version")
        .and_then(Value::as_str)
        .and_then(parse)
        .unwrap_or((2, 1));
    let Some(newest) = newest else {
        return Err(
            "Nova's version document names no microversion (Nova before 2.1 is not supported)"
                .into(),
        );
    };
    let pick = newest.min(WANTED);
    if pick < FLOOR || pick < oldest {
        return Err(format!(
            "Nova speaks microversions {}.{} to {}.{}; Mission Control needs {}.{} or newer",
            oldest.0, oldest.1, newest.0, newest.1, FLOOR.0, FLOOR.1
        ));
    }
    Ok(format!("{}.{}", pick.0, pick.1))
}

impl Api {
    /// The microversion to send Nova, asked with `scope`'s token until one answer is kept
    /// (callers ask each on their own, so one project whose sign-in hangs holds up no
    /// other; a failed ask is tried again at the next call).
    pub(super) async fn nova_microversion(&self, scope: &Scope) -> Result<String, CloudError> {
        if let Some(v) = self.nova_version.get() {
            return Ok(v.clone());
        }
        let call = (Service::Compute, Method::GET, "", &[][..], None);
        let reply = self.send_with(scope, call, None).await?.ok()?;
        let doc: Value = reply.json(Service::Compute)?;
        let chosen = choose(&doc).map_err(CloudError::new)?;
        Ok(self.nova_version.get_or_init(|| chosen).clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn doc(min: &str, max: &str) -> Value {
        json!({ "version": { "id": "v2.1", "min_version": min, "version": max } })
    }

    #[test]
    fn the_wanted_version_or_novas_newest_never_below_the_floor() {
        assert_eq!(choose(&doc("2.1", "2.95")), Ok("2.67".into()));
        assert_eq!(choose(&doc("2.1", "2.60")), Ok("2.60".into()));
        assert_eq!(choose(&doc("2.1", "2.52")), Ok("2.52".into()));
        let old = choose(&doc("2.1", "2.38")).unwrap_err();
        assert!(
            old.contains("2.1 to 2.38") && old.contains("2.52 or newer"),
            "{old}"
        );
        assert!(choose(&json!({ "version": { "version": "" } })).is_err());
        assert_eq!(parse("2.67"), Some((2, 67)));
        assert!(parse("2.9") < parse("2.10"), "minor versions are numbers");
    }
}
