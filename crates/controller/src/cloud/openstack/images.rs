//! Glance: the images a project can boot, by name (`GET /v2/images`).

use serde::Deserialize;

use super::catalog::Service;
use super::compute::q;
use super::http::Api;
use crate::cloud::CloudError;

#[derive(Deserialize)]
struct GlanceImage {
    id: String,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    created_at: String,
}

impl Api {
    /// Active image names the project can boot (`GET /v2/images?status=active`), sorted,
    /// each once.
    pub(super) async fn image_names(&self, project: &str) -> Result<Vec<String>, CloudError> {
        let query = q(&[("status", "active"), ("limit", "200")]);
        let images: Vec<GlanceImage> = self
            .list(project, Service::Image, "images", query, "images")
            .await?;
        let mut names: Vec<String> = images
            .into_iter()
            .filter_map(|i| i.name)
            .filter(|n| !n.is_empty())
            .collect();
        names.sort();
        names.dedup();
        Ok(names)
    }

    /// The id of the active image named `name`; the newest when several have that name.
    pub(super) async fn image_id(&self, project: &str, name: &str) -> Result<String, CloudError> {
        let query = q(&[("name", name), ("status", "active")]);
        let images: Vec<GlanceImage> = self
            .list(project, Service::Image, "images", query, "images")
            .await?;
        images
            .into_iter()
            .max_by(|a, b| a.created_at.cmp(&b.created_at))
            .map(|i| i.id)
            .ok_or_else(|| CloudError::new(format!("Image {name} could not be found.")))
    }
}
