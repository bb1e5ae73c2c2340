//! The ids the provider hands out for klusters' resources: what each is, in its text.

/// A resource's id as the provider hands it out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ResourceId {
    /// `volume:<cinder id>`.
    Volume(String),
    /// `loadbalancer:<octavia id>`.
    LoadBalancer(String),
    /// `floatingip:<neutron id>`.
    FloatingIp(String),
    /// `securitygroup:<neutron id>`.
    SecurityGroup(String),
    /// `route:<router id>,<destination>,<next hop>`.
    Route {
        /// Router id.
        router: String,
        /// Destination CIDR.
        destination: String,
        /// Next hop address.
        nexthop: String,
    },
}

impl ResourceId {
    /// The id's text.
    pub fn encode(&self) -> String {
        match self {
            ResourceId::Volume(id) => format!("volume:{id}"),
            ResourceId::LoadBalancer(id) => format!("loadbalancer:{id}"),
            ResourceId::FloatingIp(id) => format!("floatingip:{id}"),
            ResourceId::SecurityGroup(id) => format!("securitygroup:{id}"),
            ResourceId::Route {
                router,
                destination,
                nexthop,
            } => format!("route:{router},{destination},{nexthop}"),
        }
    }

    /// Reads an id made by [`ResourceId::encode`].
    pub fn parse(id: &str) -> Option<ResourceId> {
        let (kind, rest) = id.split_once(':')?;
        if rest.is_empty() {
            return None;
        }
        match kind {
            "volume" => Some(ResourceId::Volume(rest.to_string())),
            "loadbalancer" => Some(ResourceId::LoadBalancer(rest.to_string())),
            "floatingip" => Some(ResourceId::FloatingIp(rest.to_string())),
            "securitygroup" => Some(ResourceId::SecurityGroup(rest.to_string())),
            "route" => {
                let mut parts = rest.splitn(3, ',');
                let (router, destination, nexthop) = (parts.next()?, parts.next()?, parts.next()?);
                Some(ResourceId::Route {
                    router: router.to_string(),
                    destination: destination.to_string(),
                    nexthop: nexthop.to_string(),
                })
            }
            _ => None,
        }
    }
}
