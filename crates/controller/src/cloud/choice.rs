//! Which cloud a controller provisions into ([`CloudChoice`]), building it at start, and
//! the start-up check of a real one (its line is logged, and `/readyz` repeats it).

use std::sync::Arc;

use super::openstack::{OpenStackCloud, OpenStackConfig};
use super::sim::{Clock, SimCloud, SimConfig};
use super::{Cloud, CloudError};
use crate::store::Store;

/// The cloud behind the controller.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum CloudChoice {
    /// The simulated OpenStack region, kept in the controller's database (the default).
    #[default]
    Simulated,
    /// A real OpenStack reached through the Keystone catalog (`Debug` hides the password).
    OpenStack(Box<OpenStackConfig>),
}

/// A cloud as built from a [`CloudChoice`].
pub struct Built {
    /// The cloud the reconcilers and the API call.
    pub cloud: Arc<dyn Cloud>,
    /// The simulator when that is the cloud (its API can inject faults); `None` otherwise,
    /// which turns the simulator API off.
    pub simulator: Option<SimCloud>,
}

impl CloudChoice {
    /// `simulated` or `openstack`, as the settings spell it.
    pub fn name(&self) -> &'static str {
        match self {
            CloudChoice::Simulated => "simulated",
            CloudChoice::OpenStack(_) => "openstack",
        }
    }

    /// How long the reconcilers let one call of this cloud take at least: a real cloud's
    /// provider bounds its own calls (its timeout, GETs tried `attempts` times), whatever
    /// pace the simulated phases set. `None`: the pace decides.
    pub fn call_timeout(&self) -> Option<std::time::Duration> {
        match self {
            CloudChoice::Simulated => None,
            CloudChoice::OpenStack(c) => {
                Some(c.timeout.saturating_mul(c.attempts.saturating_add(1)))
            }
        }
    }

    /// Where Nova's notifications are read, when the operator configured it.
    pub fn notifications(&self) -> Option<&crate::notices::NoticeConfig> {
        match self {
            CloudChoice::Simulated => None,
            CloudChoice::OpenStack(c) => c.notifications.as_ref(),
        }
    }

    /// Builds the cloud; the simulator keeps its state in `store`. Nothing is called yet.
    pub fn build(&self, sim: SimConfig, store: &Store) -> Result<Built, CloudError> {
        Ok(match self {
            CloudChoice::Simulated => {
                let simulator = SimCloud::in_store(sim, Clock::real(), store.clone());
                Built {
                    cloud: Arc::new(simulator.clone()),
                    simulator: Some(simulator),
                }
            }
            CloudChoice::OpenStack(config) => {
                config.validate()?;
                Built {
                    cloud: Arc::new(OpenStackCloud::new(config.as_ref().clone())?),
                    simulator: None,
                }
            }
        })
    }
}

/// Checks `cloud` once at start and logs the outcome: a missing catalog entry or refused
/// credentials as one error line (the same words `/readyz` answers until it is fixed).
pub async fn check_at_start(cloud: Arc<dyn Cloud>) {
    match cloud.check().await {
        Ok(()) => tracing::info!("the cloud answers: signed in, its services are in the catalog"),
        Err(e) => tracing::error!("the cloud is not usable: {e}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn a_real_cloud_sets_its_own_call_bound_and_the_simulator_none() {
        assert_eq!(CloudChoice::Simulated.call_timeout(), None);
        let mut c = OpenStackConfig::new("http://ks/v3", "u", "p", "Default", "service");
        c.timeout = Duration::from_secs(30);
        c.attempts = 3;
        let bound = CloudChoice::OpenStack(Box::new(c)).call_timeout();
        assert_eq!(bound, Some(Duration::from_secs(120)));
    }
}
