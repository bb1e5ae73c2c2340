//! Klusters' own users in Keystone (Kubernikus's per-kluster service users): made in the
//! configured domain with the configured roles on the kluster's project, their password
//! set again when they exist already, deleted with the kluster. Called with the service
//! user's token scoped to the kluster's project (it needs Keystone's admin role there).

use reqwest::Method;
use serde::Deserialize;
use serde_json::{json, Value};

use super::auth::Scope;
use super::catalog::Service;
use super::compute::segment;
use super::http::{Api, Reply};
use crate::cloud::{CloudError, KlusterUser};

#[derive(Deserialize)]
struct Found {
    id: String,
}

/// Keystone's user options that exempt a service user from PCI-DSS rules
/// (`[security_compliance]`): its password never expires, needs no change at first use,
/// failed sign-ins never lock it, and days without a sign-in never disable it (a kluster's
/// user signs in only when its servers boot; Keystone 18 and later).
fn user_options() -> serde_json::Value {
    json!({
        "ignore_password_expiry": true,
        "ignore_change_password_upon_first_use": true,
        "ignore_lockout_failure_attempts": true,
        "ignore_user_inactivity": true,
    })
}

impl Api {
    /// An identity call as the service user in `project`'s scope.
    async fn identity(
        &self,
        project: &str,
        method: Method,
        path: &str,
        query: &[(&str, &str)],
        body: Option<&Value>,
    ) -> Result<Reply, CloudError> {
        let query: Vec<(String, String)> = query
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let scope = Scope::Project(project.to_string());
        self.send_as(&scope, Service::Identity, method, path, &query, body)
            .await
    }

    /// The id of the one item of a `GET` listing under `key`; `None` when it lists none.
    async fn find_one(
        &self,
        project: &str,
        path: &str,
        key: &str,
        query: &[(&str, &str)],
    ) -> Result<Option<String>, CloudError> {
        let reply = self
            .identity(project, Method::GET, path, query, None)
            .await?
            .ok()?;
        let mut page: Value = reply.json(Service::Identity)?;
        let items = page.get_mut(key).map(Value::take).unwrap_or(Value::Null);
        let found: Vec<Found> = serde_json::from_value(items).map_err(|e| {
            CloudError::new(format!(
                "Keystone sent {key} this provider cannot read: {e}"
            ))
        })?;
        Ok(found.into_iter().next().map(|f| f.id))
    }

    /// The configured kluster-user domain's id.
    async fn kluster_domain_id(&self, project: &str) -> Result<String, CloudError> {
        let domain = &self.config().kluster_user_domain;
        self.find_one(project, "domains", "domains", &[("name", domain)])
            .await?
            .ok_or_else(|| {
                CloudError::new(format!(
                    "Keystone has no domain {domain} for kluster users \
                     (controller_openstack_kluster_user_domain)"
                ))
            })
    }

    /// Makes `user` in the domain (or sets its password again), gives it the configured
    /// roles on `project` and answers its id.
    pub(super) async fn ensure_kluster_user(
        &self,
        project: &str,
        user: &KlusterUser,
    ) -> Result<String, CloudError> {
        let domain = self.kluster_domain_id(project).await?;
        let refused = |e: CloudError| {
            super::failure::prefixed(e, &format!("Keystone refused kluster user {}: ", user.name))
        };
        let existing = self
            .find_one(
                project,
                "users",
                "users",
                &[("name", &user.name), ("domain_id", &domain)],
            )
            .await?;
        let id = match existing {
            Some(id) => {
                // Enabled, exempt, with our password; a password history refusing the same
                // password again (a retry) leaves the one it has: the sign-in tells.
                let path = format!("users/{}", segment(&id));
                let body = json!({ "user": {
                    "password": user.password, "enabled": true, "options": user_options() } });
                let reply = self
                    .identity(project, Method::PATCH, &path, &[], Some(&body))
                    .await?;
                if reply.status == 400 {
                    let body = json!({ "user": { "enabled": true, "options": user_options() } });
                    self.identity(project, Method::PATCH, &path, &[], Some(&body))
                        .await?
                        .ok()
                        .map_err(refused)?;
                } else {
                    reply.ok().map_err(refused)?;
                }
                id
            }
            None => {
                let body = json!({ "user": {
                    "name": user.name,
                    "domain_id": domain,
                    "password": user.password,
                    "default_project_id": project,
                    "description": format!("Mission Control: nodes of kluster in project {project}"),
                    "options": user_options(),
                }});
                let reply = self
                    .identity(project, Method::POST, "users", &[], Some(&body))
                    .await?
                    .ok()
                    .map_err(refused)?;
                #[derive(Deserialize)]
                struct Made {
                    user: Found,
                }
                let made: Made = reply.json(Service::Identity)?;
                made.user.id
            }
        };
        for role in &self.config().kluster_user_roles {
            let role_id = self
                .find_one(project, "roles", "roles", &[("name", role)])
                .await?
                .ok_or_else(|| {
                    CloudError::new(format!(
                        "Keystone has no role {role} (controller_openstack_kluster_user_roles)"
                    ))
                })?;
            let path = format!(
                "projects/{}/users/{}/roles/{}",
                segment(project),
                segment(&id),
                segment(&role_id)
            );
            self.identity(project, Method::PUT, &path, &[], None)
                .await?
                .ok()
                .map_err(refused)?;
        }
        Ok(id)
    }

    /// Deletes the kluster user `name` of the domain; none there is fine.
    pub(super) async fn delete_kluster_user(
        &self,
        project: &str,
        name: &str,
    ) -> Result<(), CloudError> {
        let domain = self.kluster_domain_id(project).await?;
        let Some(id) = self
            .find_one(
                project,
                "users",
                "users",
                &[("name", name), ("domain_id", &domain)],
            )
            .await?
        else {
            return Ok(());
        };
        let reply = self
            .identity(
                project,
                Method::DELETE,
                &format!("users/{}", segment(&id)),
                &[],
                None,
            )
            .await?;
        if reply.status == 404 {
            return Ok(());
        }
        reply.ok().map(drop)
    }
}
