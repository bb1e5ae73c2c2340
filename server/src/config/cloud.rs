//! `controller_cloud` and the `controller_openstack_*` keys: which cloud the embedded
//! controller provisions into, and how it reaches a real OpenStack.

use std::time::Duration;

use controller::auth::ServiceCredentials;
use controller::cloud::choice::CloudChoice;
use controller::cloud::openstack::OpenStackConfig;

use super::{ConfigError, Settings};

/// The cloud keys, taken from the settings before the rest of them is consumed.
pub(super) struct CloudKeys {
    cloud: Option<String>,
    auth_url: Option<String>,
    user: Option<String>,
    password: Option<String>,
    user_domain: Option<String>,
    project: Option<String>,
    project_domain: Option<String>,
    region: Option<String>,
    interface: Option<String>,
    timeout_seconds: Option<f64>,
    attempts: Option<u32>,
    kluster_user_domain: Option<String>,
    kluster_user_roles: Option<String>,
}

impl CloudKeys {
    /// The cloud keys of `s`.
    pub(super) fn of(s: &Settings) -> CloudKeys {
        CloudKeys {
            cloud: s.controller_cloud.clone(),
            auth_url: s.controller_openstack_auth_url.clone(),
            user: s.controller_openstack_user.clone(),
            password: s.controller_openstack_password.clone(),
            user_domain: s.controller_openstack_user_domain.clone(),
            project: s.controller_openstack_project.clone(),
            project_domain: s.controller_openstack_project_domain.clone(),
            region: s.controller_openstack_region.clone(),
            interface: s.controller_openstack_interface.clone(),
            timeout_seconds: s.controller_openstack_timeout_seconds,
            attempts: s.controller_openstack_attempts,
            kluster_user_domain: s.controller_openstack_kluster_user_domain.clone(),
            kluster_user_roles: s.controller_openstack_kluster_user_roles.clone(),
        }
    }

    /// The embedded controller's cloud. OpenStack's user, password, domain and project
    /// default to the controller's service user (`service`; `None` with a remote
    /// controller, whose cloud is its own business: then the keys are not read).
    pub(super) fn resolve(
        self,
        keystone_url: &str,
        service: Option<&ServiceCredentials>,
    ) -> Result<CloudChoice, ConfigError> {
        let invalid = |key: &'static str, message: String| ConfigError::Invalid { key, message };
        let kind = self.cloud.as_deref().map(str::trim).unwrap_or("simulated");
        let service = match (kind, service) {
            ("simulated", _) | (_, None) => return Ok(CloudChoice::Simulated),
            ("openstack", Some(s)) => s,
            (other, _) => {
                return Err(invalid(
                    "controller_cloud",
                    format!("{other:?}: expected \"simulated\" or \"openstack\""),
                ))
            }
        };
        let user_domain = self.user_domain.unwrap_or(service.user_domain.clone());
        let mut c = OpenStackConfig::new(
            self.auth_url.unwrap_or(keystone_url.to_string()),
            self.user.unwrap_or(service.user_name.clone()),
            self.password.unwrap_or(service.password.clone()),
            user_domain.clone(),
            self.project.unwrap_or(service.project.clone()),
        );
        c.project_domain = self.project_domain.unwrap_or(user_domain);
        c.region = self.region.unwrap_or_default();
        if let Some(i) = self.interface {
            c.interface = i
                .parse()
                .map_err(|m| invalid("controller_openstack_interface", m))?;
        }
        if let Some(t) = self.timeout_seconds {
            c.timeout = Duration::try_from_secs_f64(t)
                .ok()
                .filter(|d| !d.is_zero())
                .ok_or(invalid(
                    "controller_openstack_timeout_seconds",
                    "must be greater than 0".into(),
                ))?;
        }
        if let Some(n) = self.attempts {
            if n == 0 {
                return Err(invalid(
                    "controller_openstack_attempts",
                    "must be at least 1".into(),
                ));
            }
            c.attempts = n;
        }
        c.kluster_user_domain = self.kluster_user_domain.unwrap_or_default();
        if let Some(roles) = self.kluster_user_roles {
            c.kluster_user_roles = roles_of(&roles);
        }
        c.validate().map_err(|e| {
            // Never the password: validate's words name what is wrong, not the values.
            invalid("controller_openstack_*", e.message)
        })?;
        Ok(CloudChoice::OpenStack(Box::new(c)))
    }
}

/// A comma-separated list of role names, blanks dropped.
pub fn roles_of(list: &str) -> Vec<String> {
    list.split(',')
        .map(str::trim)
        .filter(|r| !r.is_empty())
        .map(String::from)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn service() -> ServiceCredentials {
        ServiceCredentials {
            user_name: "mission-control".into(),
            password: "service-secret".into(),
            user_domain: "Default".into(),
            project: "service".into(),
            project_domain: "Default".into(),
        }
    }

    #[test]
    fn openstack_defaults_to_the_service_user_and_keystone() {
        let s = Settings {
            controller_cloud: Some("openstack".into()),
            controller_openstack_region: Some("RegionOne".into()),
            ..Default::default()
        };
        let got = CloudKeys::of(&s)
            .resolve("http://ks/v3", Some(&service()))
            .unwrap();
        let CloudChoice::OpenStack(c) = got else {
            panic!("not openstack")
        };
        assert_eq!(
            (c.auth_url.as_str(), c.user_name.as_str(), c.region.as_str()),
            ("http://ks/v3", "mission-control", "RegionOne")
        );
        assert_eq!(c.password, "service-secret");
        assert!(!format!("{c:?}").contains("service-secret"));
    }

    #[test]
    fn kluster_users_are_off_unless_a_domain_is_set_and_roles_are_a_list() {
        let mut s = Settings {
            controller_cloud: Some("openstack".into()),
            ..Default::default()
        };
        let resolve =
            |s: &Settings| match CloudKeys::of(s).resolve("http://ks/v3", Some(&service())) {
                Ok(CloudChoice::OpenStack(c)) => c,
                other => panic!("{other:?}"),
            };
        let c = resolve(&s);
        assert_eq!(
            (c.kluster_user_domain.as_str(), c.kluster_user_roles.clone()),
            ("", vec!["member".to_string()])
        );
        s.controller_openstack_kluster_user_domain = Some("kubernikus".into());
        s.controller_openstack_kluster_user_roles = Some(" member, load-balancer_member ,".into());
        let c = resolve(&s);
        assert_eq!(c.kluster_user_domain, "kubernikus");
        assert_eq!(c.kluster_user_roles, ["member", "load-balancer_member"]);
        s.controller_openstack_kluster_user_roles = Some(" , ".into());
        let refused = CloudKeys::of(&s).resolve("http://ks/v3", Some(&service()));
        assert!(
            matches!(refused, Err(ConfigError::Invalid { message, .. }) if message.contains("at least one role"))
        );
    }

    #[test]
    fn the_default_is_simulated_and_bad_values_name_their_key() {
        let none = CloudKeys::of(&Settings::default());
        assert_eq!(
            none.resolve("http://ks/v3", Some(&service())).unwrap(),
            CloudChoice::Simulated
        );
        let cases = [
            (
                "controller_cloud",
                Settings {
                    controller_cloud: Some("aws".into()),
                    ..Default::default()
                },
            ),
            (
                "controller_openstack_interface",
                Settings {
                    controller_cloud: Some("openstack".into()),
                    controller_openstack_interface: Some("private".into()),
                    ..Default::default()
                },
            ),
            (
                "controller_openstack_attempts",
                Settings {
                    controller_cloud: Some("openstack".into()),
                    controller_openstack_attempts: Some(0),
                    ..Default::default()
                },
            ),
        ];
        for (key, s) in cases {
            let e = CloudKeys::of(&s)
                .resolve("http://ks/v3", Some(&service()))
                .unwrap_err();
            assert!(e.to_string().starts_with(key), "{key}: {e}");
        }
    }
}
