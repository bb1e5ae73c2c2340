//! Per-project quota limits and injected faults, and the gate every API call passes.

use serde::{Deserialize, Serialize};

use super::SimCloud;
use crate::cloud::CloudError;

/// Quota limits of a project.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Limits {
    /// Servers.
    pub instances: i64,
    /// vCPUs.
    pub cores: i64,
    /// RAM in MiB.
    pub ram: i64,
}

impl Default for Limits {
    /// Nova's defaults: 10 instances, 20 cores, 50 GiB RAM.
    fn default() -> Self {
        Limits {
            instances: 10,
            cores: 20,
            ram: 51200,
        }
    }
}

/// Faults to inject into one project; all off by default.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
pub struct Faults {
    /// Every server create fails as if the instance quota were used up.
    pub quota_exhausted: bool,
    /// New servers end in ERROR instead of ACTIVE.
    pub server_error: bool,
    /// Every call fails with an internal server error.
    pub api_error: bool,
    /// Every call hangs (callers time out).
    pub api_timeout: bool,
    /// The next this-many server listings come back empty.
    pub empty_listings: u32,
    /// New servers never register as nodes.
    pub no_register: bool,
}

/// A project's simulator settings (extension endpoint `/api/v1/simulator`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SimProject {
    /// Injected faults.
    #[serde(default)]
    pub faults: Faults,
    /// Quota limits.
    pub limits: Limits,
}

impl SimCloud {
    /// The project's faults and limits.
    pub async fn project(&self, project: &str) -> Result<SimProject, CloudError> {
        self.with_project(project, |p| SimProject {
            faults: p.faults.clone(),
            limits: p.limits,
        })
        .await
    }

    /// Replaces the project's faults and limits; they apply from the next call on.
    pub async fn set_project(&self, project: &str, settings: SimProject) -> Result<(), CloudError> {
        self.with_project(project, |p| {
            p.faults = settings.faults;
            p.limits = settings.limits;
            p.dirty = true;
        })
        .await
    }

    /// Applies the project's API faults; `Ok(())` when the call may go on.
    pub(super) async fn gate(&self, project: &str) -> Result<(), CloudError> {
        let faults = self.with_project(project, |p| p.faults.clone()).await?;
        if faults.api_timeout {
            std::future::pending::<()>().await;
        }
        if faults.api_error {
            return Err(CloudError::new(
                "Unexpected API Error. The server has either erred or is incapable of performing the requested operation. (HTTP 500)",
            ));
        }
        Ok(())
    }
}
