//! What the simulated region offers: flavors, zones, images, and each project's catalog
//! (routers, networks, subnets, key pair, security group, volume types).

use kluster::{Flavor, IdName, KeyPair, Named, Network, OpenstackMetadata, Router, Subnet};

use super::SimCloud;

/// Flavors of the simulated region: (name, vCPUs, RAM MiB).
pub const FLAVORS: &[(&str, i64, i64)] = &[
    ("m1.small", 2, 4096),
    ("m1.medium", 4, 8192),
    ("m1.large", 8, 16384),
    ("m1.xlarge", 16, 32768),
];

/// Availability zones of the simulated region.
pub const ZONES: &[&str] = &["az-a", "az-b"];

/// Images servers can boot.
pub const IMAGES: &[&str] = &["flatcar-stable-amd64", "ubuntu-24.04-amd64"];

impl SimCloud {
    /// The catalog `project` sees; ids derive from the project id, so they are stable.
    pub fn catalog(project: &str) -> OpenstackMetadata {
        let short: String = project.chars().take(8).collect();
        OpenstackMetadata {
            availability_zones: ZONES.iter().map(|z| Named { name: (*z).into() }).collect(),
            flavors: FLAVORS
                .iter()
                .enumerate()
                .map(|(i, (name, vcpus, ram))| Flavor {
                    name: (*name).into(),
                    id: format!("flavor-{}", i + 1),
                    ram: *ram,
                    vcpus: *vcpus,
                })
                .collect(),
            security_groups: vec![
                IdName {
                    name: "default".into(),
                    id: format!("sg-{short}"),
                },
                IdName {
                    name: "web".into(),
                    id: format!("sg-web-{short}"),
                },
            ],
            key_pairs: vec![KeyPair {
                name: "default-key".into(),
                public_key: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBaQ0ix8Z3cQ1C2FAkRVkC7Tt5LjlZpNNqKWKqqeE6eB default-key".into(),
            }],
            routers: vec![Router {
                name: "default-router".into(),
                id: format!("router-{short}"),
                external_network_id: "net-external".into(),
                networks: vec![Network {
                    name: "private".into(),
                    id: format!("net-{short}"),
                    subnets: vec![Subnet {
                        name: "private-subnet".into(),
                        id: format!("subnet-{short}"),
                        cidr: "10.180.0.0/24".into(),
                    }],
                }],
            }],
            volume_types: vec![IdName {
                name: "standard".into(),
                id: "vt-standard".into(),
            }],
            // The API adds `Cloud::images` to the answer.
            images: Vec::new(),
            external_networks: vec![IdName {
                name: "public".into(),
                id: "net-external".into(),
            }],
        }
    }
}
