//! The create form's data: its values as typed ([`KlusterForm`], [`PoolForm`]) and how they
//! become a kluster by the API's rules, what the form offers ([`CreateContext`]), a copy
//! of another kluster ([`Copied`]) and what pools need from the quota ([`Needs`]).
//! Re-exported by `model`.

use serde::{Deserialize, Serialize};

/// One node pool row of the create form, as typed.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PoolForm {
    /// Pool name.
    #[serde(default)]
    pub name: String,
    /// Flavor name.
    #[serde(default)]
    pub flavor: String,
    /// Availability zone.
    #[serde(default)]
    pub availability_zone: String,
    /// Number of nodes, as typed.
    #[serde(default)]
    pub size: String,
    /// Nodes may reboot for updates ("on" when ticked).
    #[serde(default)]
    pub allow_reboot: Option<String>,
    /// Nodes may be replaced ("on" when ticked).
    #[serde(default)]
    pub allow_replace: Option<String>,
    /// Node labels, one `key=value` a line.
    #[serde(default)]
    pub labels: String,
    /// Node taints, one `key=value:Effect` a line.
    #[serde(default)]
    pub taints: String,
    /// Image name (empty: the API's default).
    #[serde(default)]
    pub image: String,
    /// Root disk size in GB, as typed (empty: the flavor's own disk).
    #[serde(default)]
    pub root_disk: String,
}

/// The create form, as typed (every field a string, as a form posts it).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct KlusterForm {
    /// Kluster name.
    #[serde(default)]
    pub name: String,
    /// Kubernetes version.
    #[serde(default)]
    pub version: String,
    /// Node pools.
    #[serde(default)]
    pub pools: Vec<PoolForm>,
    /// Pasted SSH public key.
    #[serde(default)]
    pub ssh_public_key: String,
    /// The public key of the chosen key pair (used when nothing is pasted).
    #[serde(default)]
    pub key_pair: String,
    /// Router id (empty: the only one).
    #[serde(default)]
    pub router_id: String,
    /// Network id (empty: the router's only one).
    #[serde(default)]
    pub network_id: String,
    /// Load-balancer subnet id (empty: the network's only one).
    #[serde(default)]
    pub lb_subnet_id: String,
    /// Security group name (empty: `default`).
    #[serde(default)]
    pub security_group_name: String,
    /// External network for load balancers' floating IPs (empty: the router's).
    #[serde(default)]
    pub lb_floating_network_id: String,
    /// Audit log destination (empty: none).
    #[serde(default)]
    pub audit: String,
    /// Service CIDR (empty: the default).
    #[serde(default)]
    pub service_cidr: String,
    /// Pod CIDR (empty: the default).
    #[serde(default)]
    pub cluster_cidr: String,
}

impl KlusterForm {
    /// The kluster the form describes, checked with the API's own rules
    /// (`kluster::validate`): the same messages as the API's, keyed by JSON path.
    pub fn to_kluster(&self) -> Result<kluster::Kluster, kluster::ValidationErrors> {
        let (k, mut errors) = self.to_kluster_unchecked();
        if let Err(e) = kluster::validate::kluster(&k) {
            errors.0.extend(e.0);
        }
        errors.into_result().map(|()| k)
    }

    /// The kluster the form describes, with only the form's own problems (sizes that are
    /// not numbers, no pool at all); the API's rules are left to the API.
    pub fn to_kluster_unchecked(&self) -> (kluster::Kluster, kluster::ValidationErrors) {
        let mut errors = kluster::ValidationErrors::default();
        let mut k = kluster::Kluster {
            name: self.name.trim().to_string(),
            ..Default::default()
        };
        let s = &mut k.spec;
        s.version = self.version.trim().to_string();
        let pasted = self.ssh_public_key.trim();
        s.ssh_public_key = if pasted.is_empty() {
            self.key_pair.trim().to_string()
        } else {
            pasted.to_string()
        };
        s.service_cidr = self.service_cidr.trim().to_string();
        let cluster_cidr = self.cluster_cidr.trim();
        s.cluster_cidr = (!cluster_cidr.is_empty()).then(|| cluster_cidr.to_string());
        s.openstack.router_id = self.router_id.trim().to_string();
        s.openstack.network_id = self.network_id.trim().to_string();
        s.openstack.lb_subnet_id = self.lb_subnet_id.trim().to_string();
        s.openstack.security_group_name = self.security_group_name.trim().to_string();
        s.openstack.lb_floating_network_id = self.lb_floating_network_id.trim().to_string();
        s.audit = audit(&self.audit);
        for (i, p) in self.pools.iter().enumerate() {
            let size = pool_size(i, &p.size).unwrap_or_else(|e| {
                errors.0.push(e);
                0
            });
            let root_disk = root_disk(i, &p.root_disk).unwrap_or_else(|e| {
                errors.0.push(e);
                None
            });
            s.node_pools.push(kluster::NodePool {
                name: p.name.trim().to_string(),
                size,
                flavor: p.flavor.trim().to_string(),
                image: p.image.trim().to_string(),
                custom_root_disk_size: root_disk,
                availability_zone: p.availability_zone.trim().to_string(),
                config: Some(kluster::NodePoolConfig {
                    allow_reboot: Some(p.allow_reboot.is_some()),
                    allow_replace: Some(p.allow_replace.is_some()),
                }),
                labels: kluster::validate::lines(&p.labels),
                taints: kluster::validate::lines(&p.taints),
            });
        }
        if k.spec.node_pools.is_empty() {
            errors.0.push(kluster::FieldError {
                field: "spec.nodePools".into(),
                message: "Add at least one node pool.".into(),
            });
        }
        (k, errors)
    }
}

/// What the create form offers: the cloud's catalog, the project's quota and the versions.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CreateContext {
    /// Flavors, zones, routers, key pairs, security groups.
    pub metadata: kluster::OpenstackMetadata,
    /// The project's quota, when the controller reports one (an extension).
    pub quota: Option<kluster::Quota>,
    /// Versions new klusters may use; the first is the default.
    pub versions: Vec<String>,
    /// What a rejected plain form post left for the form: its values and the error.
    pub flash: Option<(KlusterForm, crate::error::AppError)>,
    /// The form copied from another kluster (`?from=<name>`), or why it could not be.
    pub copy: Option<Copied>,
}

/// What `/klusters/new?from=<name>` starts with (made by `crate::duplicate`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Copied {
    /// The form filled from the source (none: the form starts empty).
    pub form: Option<KlusterForm>,
    /// What the page says about the copy: what it copies and leaves out, or why nothing
    /// was copied.
    pub notice: String,
}

impl Copied {
    /// Nothing copied, and why (`notice`): the form starts empty and stays usable.
    pub fn nothing(notice: String) -> Self {
        Self { form: None, notice }
    }
}

/// What a set of pools needs from the quota.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Needs {
    /// Servers.
    pub instances: i64,
    /// vCPUs.
    pub cores: i64,
    /// RAM in MiB.
    pub ram: i64,
}

impl Needs {
    /// Sums the pools' sizes times their flavors' vCPUs and RAM (unknown flavors count
    /// only as instances).
    pub fn of(pools: &[PoolForm], flavors: &[kluster::Flavor]) -> Needs {
        let mut n = Needs::default();
        for p in pools {
            let size = p.size.trim().parse::<i64>().unwrap_or(0).max(0);
            n.instances += size;
            if let Some(f) = flavors.iter().find(|f| f.name == p.flavor) {
                n.cores += size * f.vcpus;
                n.ram += size * f.ram;
            }
        }
        n
    }

    /// The quotas these needs exceed, in words (empty: it fits).
    pub fn shortfalls(&self, q: &kluster::Quota) -> Vec<String> {
        let mut out = Vec::new();
        let mut check = |what: &str, need: i64, u: kluster::Usage, unit: &str| {
            if need > u.remaining() {
                out.push(format!(
                    "{what}: needs {need}{unit}, {} of {}{unit} left",
                    u.remaining(),
                    u.limit
                ));
            }
        };
        check("Instances", self.instances, q.instances, "");
        check("vCPUs", self.cores, q.cores, "");
        check("RAM", self.ram / 1024, gib(q.ram), " GiB");
        out
    }
}

fn gib(u: kluster::Usage) -> kluster::Usage {
    kluster::Usage {
        limit: u.limit / 1024,
        used: (u.used + 1023) / 1024,
    }
}

/// A pool's size as typed (`spec.nodePools[i].size`): a whole number, else why not.
pub fn pool_size(i: usize, typed: &str) -> Result<i64, kluster::FieldError> {
    typed.trim().parse().map_err(|_| kluster::FieldError {
        field: format!("spec.nodePools[{i}].size"),
        message: "The size is a whole number of nodes (0 to 127).".into(),
    })
}

/// A pool's root disk as typed (`spec.nodePools[i].customRootDiskSize`): empty is the
/// flavor's own disk, else a whole number of GB, else why not.
pub fn root_disk(i: usize, typed: &str) -> Result<Option<i64>, kluster::FieldError> {
    match typed.trim() {
        "" => Ok(None),
        d => d.parse().map(Some).map_err(|_| kluster::FieldError {
            field: format!("spec.nodePools[{i}].customRootDiskSize"),
            message: "The root disk is a whole number of GB (64 to 1024), or empty for the flavor's own disk.".into(),
        }),
    }
}

/// The security group as a form's picker chooses it: `default` is the empty choice.
pub fn group_choice(name: &str) -> &str {
    match name {
        "default" => "",
        g => g,
    }
}

/// The API's `audit` for what a form's audit choice posts: empty is none.
pub fn audit(choice: &str) -> Option<String> {
    let c = choice.trim();
    (!c.is_empty()).then(|| c.to_string())
}

/// The audit destinations the API takes, as a form offers them (value, label).
pub const AUDIT_CHOICES: [(&str, &str); 5] = [
    ("", "Off"),
    ("elasticsearch", "Elasticsearch"),
    ("swift", "Swift"),
    ("http", "HTTP webhook"),
    ("stdout", "Standard output"),
];

#[cfg(test)]
mod tests;
