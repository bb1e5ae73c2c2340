//! One change to a kluster's spec as a detail-page form sends it ([`Edit`]), and how it is
//! applied to the spec the server read. Pure: the edit server function and the tests use it.

use serde::{Deserialize, Serialize};

use crate::error::AppError;

/// One change to a kluster's spec, as a form sends it (every field as typed).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum Edit {
    /// Move to this Kubernetes version (the update rules decide which are allowed).
    Upgrade {
        /// The version.
        version: String,
    },
    /// Add a node pool.
    AddPool {
        /// Pool name.
        pool: String,
        /// Flavor name.
        flavor: String,
        /// Availability zone.
        zone: String,
        /// Nodes, as typed.
        size: String,
        /// Image name (empty: the default).
        #[serde(default)]
        image: String,
        /// Root disk in GB, as typed (empty: the flavor's own disk).
        #[serde(default)]
        root_disk: String,
        /// The pool's settings (labels, taints, update policy), posted as
        /// `edit[options][…]` (nested, not flattened: the browser's decoder stays small).
        options: PoolOptions,
    },
    /// Change an existing pool's labels, taints and update policy.
    SetPoolOptions {
        /// Pool name.
        pool: String,
        /// The new settings (`edit[options][…]`).
        options: PoolOptions,
    },
    /// Change the SSH key, security group and audit destination (each as typed; empty:
    /// no key, the `default` group, no audit).
    SetAccess {
        /// The SSH public key.
        ssh_public_key: String,
        /// The security group's name.
        security_group: String,
        /// The audit destination.
        audit: String,
    },
    /// Remove a pool (only at size 0).
    RemovePool {
        /// Pool name.
        pool: String,
    },
}

/// A pool's labels, taints and update policy as a form posts them.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PoolOptions {
    /// Labels, one `key=value` a line.
    #[serde(default)]
    pub labels: String,
    /// Taints, one `key=value:Effect` a line.
    #[serde(default)]
    pub taints: String,
    /// "on" when "Allow reboot" is ticked (a checkbox left unticked is not sent).
    #[serde(default)]
    pub allow_reboot: Option<String>,
    /// "on" when "Allow replace" is ticked.
    #[serde(default)]
    pub allow_replace: Option<String>,
}

/// What a refused plain post of a pool's settings leaves for the kluster's page: the pool,
/// what was typed, and why it was refused.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PoolFlash {
    /// Pool name.
    pub pool: String,
    /// The settings as typed.
    pub options: PoolOptions,
    /// Why they were refused.
    pub error: AppError,
}

impl PoolOptions {
    /// The options a pool has now, as its form shows them.
    pub fn of(p: &kluster::NodePool) -> Self {
        let c = kluster::defaults::pool_config(p.config.as_ref(), None);
        let on = |b: Option<bool>| b.unwrap_or(true).then(|| "on".to_string());
        Self {
            labels: kluster::validate::unlines(&p.labels),
            taints: kluster::validate::unlines(&p.taints),
            allow_reboot: on(c.allow_reboot),
            allow_replace: on(c.allow_replace),
        }
    }

    /// Sets them on pool `p` (number `i` of the spec's pools), checked with the API's rules
    /// for labels and taints (errors named `spec.nodePools[i].labels[j]`, …).
    pub fn apply(&self, p: &mut kluster::NodePool, i: usize) -> Result<(), AppError> {
        p.labels = kluster::validate::lines(&self.labels);
        p.taints = kluster::validate::lines(&self.taints);
        p.config = Some(kluster::NodePoolConfig {
            allow_reboot: Some(self.allow_reboot.is_some()),
            allow_replace: Some(self.allow_replace.is_some()),
        });
        self.check(i)
    }

    /// The API's rules for these labels and taints, for pool number `i`.
    pub fn check(&self, i: usize) -> Result<(), AppError> {
        let mut errs = kluster::ValidationErrors::default();
        kluster::validate::labels_and_taints(
            &kluster::validate::lines(&self.labels),
            &kluster::validate::lines(&self.taints),
            &format!("spec.nodePools[{i}]"),
            &mut errs,
        );
        errs.into_result().map_err(|e| AppError::Invalid(e.0))
    }
}

fn invalid(field: String, message: String) -> AppError {
    AppError::Invalid(vec![kluster::FieldError { field, message }])
}

impl Edit {
    /// Applies the change to `spec` (the kluster as the server just read it); what the form
    /// got wrong comes back per field, and the controller checks the rest.
    pub fn apply(self, spec: &mut kluster::KlusterSpec) -> Result<(), AppError> {
        match self {
            Edit::Upgrade { version } => spec.version = version,
            Edit::AddPool {
                pool,
                flavor,
                zone,
                size,
                image,
                root_disk,
                options,
            } => {
                let i = spec.node_pools.len();
                let at = |f: &str| format!("spec.nodePools[{i}].{f}");
                let one = |e: kluster::FieldError| AppError::Invalid(vec![e]);
                let size = crate::form_model::pool_size(i, &size).map_err(one)?;
                let pool = pool.trim().to_string();
                if spec.node_pools.iter().any(|p| p.name == pool) {
                    let m = format!("There is already a pool named {pool:?}.");
                    return Err(invalid(at("name"), m));
                }
                let custom_root_disk_size =
                    crate::form_model::root_disk(i, &root_disk).map_err(one)?;
                let image = match image.trim() {
                    "" => kluster::defaults::IMAGE.to_string(),
                    i => i.to_string(),
                };
                let mut p = kluster::NodePool {
                    name: pool,
                    size,
                    flavor,
                    availability_zone: zone,
                    image,
                    custom_root_disk_size,
                    ..Default::default()
                };
                options.apply(&mut p, i)?;
                spec.node_pools.push(p);
            }
            Edit::SetPoolOptions { pool, options } => {
                let Some((i, p)) = spec
                    .node_pools
                    .iter_mut()
                    .enumerate()
                    .find(|(_, p)| p.name == pool)
                else {
                    return Err(AppError::NotFound(format!(
                        "There is no node pool {pool:?}."
                    )));
                };
                options.apply(p, i)?;
            }
            Edit::SetAccess {
                ssh_public_key,
                security_group,
                audit,
            } => {
                spec.ssh_public_key = ssh_public_key.trim().to_string();
                // The form's empty choice is `default`: naming it is no change.
                let group = security_group.trim();
                let now = crate::form_model::group_choice(&spec.openstack.security_group_name);
                if group != now {
                    spec.openstack.security_group_name = group.to_string();
                }
                spec.audit = crate::form_model::audit(&audit);
            }
            Edit::RemovePool { pool } => spec.node_pools.retain(|p| p.name != pool),
        }
        Ok(())
    }

    /// The pool whose form sent this edit and keeps what was typed (none: upgrade, remove).
    pub fn typed_pool(&self) -> Option<(&str, &PoolOptions)> {
        match self {
            Edit::SetPoolOptions { pool, options } => Some((pool, options)),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec() -> kluster::KlusterSpec {
        kluster::KlusterSpec {
            node_pools: vec![kluster::NodePool {
                name: "a".into(),
                size: 1,
                flavor: "m1.small".into(),
                availability_zone: "az-a".into(),
                ..Default::default()
            }],
            ..Default::default()
        }
    }

    fn options(labels: &str, taints: &str, reboot: bool, replace: bool) -> PoolOptions {
        let on = |b: bool| b.then(|| "on".to_string());
        PoolOptions {
            labels: labels.into(),
            taints: taints.into(),
            allow_reboot: on(reboot),
            allow_replace: on(replace),
        }
    }

    #[test]
    fn a_pools_options_are_set_from_the_lines_typed() {
        let mut s = spec();
        let edit = Edit::SetPoolOptions {
            pool: "a".into(),
            options: options(
                "team=payments\n\ntier=web",
                "gpu=yes:NoSchedule",
                true,
                false,
            ),
        };
        edit.apply(&mut s).unwrap();
        let p = &s.node_pools[0];
        assert_eq!(p.labels, ["team=payments", "tier=web"]);
        assert_eq!(p.taints, ["gpu=yes:NoSchedule"]);
        let c = p.config.clone().unwrap_or_default();
        assert_eq!((c.allow_reboot, c.allow_replace), (Some(true), Some(false)));
        assert_eq!(PoolOptions::of(p).labels, "team=payments\ntier=web");
        assert_eq!(PoolOptions::of(p).allow_replace, None);
    }

    #[test]
    fn a_bad_taint_is_refused_naming_its_line() {
        let mut s = spec();
        let edit = Edit::SetPoolOptions {
            pool: "a".into(),
            options: options("", "ok=yes:NoExecute\ngpu=yes:Sometimes", true, true),
        };
        let e = edit.apply(&mut s).unwrap_err();
        assert!(e
            .for_field("spec.nodePools[0].taints[1]")
            .is_some_and(|m| m.contains("Sometimes")));
        let missing = Edit::SetPoolOptions {
            pool: "zz".into(),
            options: PoolOptions::default(),
        };
        assert!(matches!(missing.apply(&mut s), Err(AppError::NotFound(_))));
    }

    #[test]
    fn access_sets_key_group_and_audit_and_default_is_no_change() {
        let mut s = spec();
        s.openstack.security_group_name = "default".into();
        let edit = |key: &str, group: &str, audit: &str| Edit::SetAccess {
            ssh_public_key: key.into(),
            security_group: group.into(),
            audit: audit.into(),
        };
        edit(" ssh-ed25519 AAAA me@x \n", "", "swift")
            .apply(&mut s)
            .unwrap();
        assert_eq!(s.ssh_public_key, "ssh-ed25519 AAAA me@x");
        assert_eq!(s.openstack.security_group_name, "default");
        assert_eq!(s.audit.as_deref(), Some("swift"));
        edit("", "web", "").apply(&mut s).unwrap();
        assert_eq!(
            (
                s.ssh_public_key.as_str(),
                s.openstack.security_group_name.as_str()
            ),
            ("", "web")
        );
        assert_eq!(s.audit, None);
        edit("", "", "").apply(&mut s).unwrap();
        assert_eq!(s.openstack.security_group_name, "");
    }

    #[test]
    fn an_added_pool_gets_the_policy_chosen() {
        let mut s = spec();
        let add = Edit::AddPool {
            pool: " b ".into(),
            flavor: "m1.small".into(),
            zone: "az-a".into(),
            size: "2".into(),
            image: "ubuntu-24.04-amd64".into(),
            root_disk: " 128 ".into(),
            options: options("team=x", "", false, true),
        };
        add.apply(&mut s).unwrap();
        let b = s.node_pools[1].clone();
        assert_eq!((b.name.as_str(), b.size), ("b", 2));
        assert_eq!(
            (b.image.as_str(), b.custom_root_disk_size),
            ("ubuntu-24.04-amd64", Some(128))
        );
        let bad = Edit::AddPool {
            pool: "c".into(),
            flavor: "m1.small".into(),
            zone: "az-a".into(),
            size: "1".into(),
            image: String::new(),
            root_disk: "big".into(),
            options: PoolOptions::default(),
        };
        let e = bad.apply(&mut s).unwrap_err();
        assert!(e
            .for_field("spec.nodePools[2].customRootDiskSize")
            .is_some());
        assert_eq!(s.node_pools.len(), 2, "nothing added in part");
        assert_eq!(b.labels, ["team=x"]);
        let c = b.config.clone().unwrap_or_default();
        assert_eq!((c.allow_reboot, c.allow_replace), (Some(false), Some(true)));
    }

    #[test]
    fn a_plain_form_post_decodes_into_an_edit() {
        // As a browser posts the pool form; an unticked checkbox is not sent.
        let body = "name=k&edit%5Bop%5D=set_pool_options&edit%5Bpool%5D=a\
                    &edit%5Boptions%5D%5Blabels%5D=team%3Dx%0D%0Atier%3Dweb\
                    &edit%5Boptions%5D%5Btaints%5D=\
                    &edit%5Boptions%5D%5Ballow_replace%5D=on&version=7";
        let call: crate::server_fns::EditKluster = serde_qs::Config::new(5, false)
            .deserialize_str(body)
            .unwrap();
        assert_eq!(
            call.edit,
            Edit::SetPoolOptions {
                pool: "a".into(),
                options: options("team=x\r\ntier=web", "", false, true),
            }
        );
    }

    #[test]
    fn an_edit_kept_for_the_page_reads_back_as_typed() {
        // The session keeps a refused plain post as JSON until the page shows it.
        let e = Edit::SetPoolOptions {
            pool: "a".into(),
            options: options("team=x", "bad", true, false),
        };
        let json = serde_json::to_string(&e).unwrap();
        assert_eq!(serde_json::from_str::<Edit>(&json).unwrap(), e);
        assert_eq!(e.typed_pool().map(|(p, _)| p), Some("a"));
    }
}
