//! Requests counted from the test OpenStack's own request logs: what each service logged
//! after a mark, one line per request, on behalf of a project (its id in the line).

use std::path::{Path, PathBuf};

/// Each service's log and what marks its one line per request.
const SERVICES: &[(&str, &str, &str)] = &[
    ("Nova", "nova-api.log", "nova.api.openstack.requestlog"),
    ("Neutron", "neutron-server.log", "neutron.wsgi"),
    ("Glance", "glance.log", "eventlet.wsgi.server"),
    ("Cinder", "cinder-api.log", "cinder.api.openstack.wsgi"),
    ("Octavia", "octavia-api.log", "[pid:"),
];

/// The test cloud's log directory (`MC_TEST_OS_HOME/logs`, else
/// `.state/openstack-test/logs`), if it has Nova's log.
pub fn dir() -> Option<PathBuf> {
    let home = std::env::var("MC_TEST_OS_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|_| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../.state/openstack-test")
        });
    let logs = home.join("logs");
    logs.join("nova-api.log").exists().then_some(logs)
}

/// Where each log ended at a moment.
pub struct Marks {
    dir: PathBuf,
    ends: Vec<u64>,
}

/// Requests per service for one project.
#[derive(Clone, Debug, Default)]
pub struct Counted {
    /// By service, in [`SERVICES`]' order.
    pub by_service: Vec<u64>,
}

impl Counted {
    /// All services together.
    pub fn total(&self) -> u64 {
        self.by_service.iter().sum()
    }

    /// The counts of several projects added up.
    pub fn sum(all: &[Counted]) -> Counted {
        let mut by_service = vec![0; SERVICES.len()];
        for c in all {
            for (s, n) in by_service.iter_mut().zip(&c.by_service) {
                *s += n;
            }
        }
        Counted { by_service }
    }

    /// "Nova 1.00, Neutron 0.00, …", each divided by `per`.
    pub fn per_service(&self, per: f64) -> String {
        let parts: Vec<String> = SERVICES
            .iter()
            .zip(&self.by_service)
            .map(|((name, _, _), n)| format!("{name} {:.2}", *n as f64 / per))
            .collect();
        parts.join(", ")
    }
}

/// Whether `line` is one request's line of a service with `marker`.
fn is_request(line: &str, marker: &str) -> bool {
    if !line.contains(marker) {
        return false;
    }
    match marker {
        // Cinder logs the request ("GET http://…") and its answer ("… returned with").
        "cinder.api.openstack.wsgi" => ["GET http", "POST http", "PUT http", "DELETE http"]
            .iter()
            .any(|m| line.contains(m)),
        _ => ["GET ", "POST ", "PUT ", "DELETE "]
            .iter()
            .any(|m| line.contains(m)),
    }
}

impl Marks {
    /// The logs' ends now.
    pub fn now(dir: &Path) -> Marks {
        let ends = SERVICES
            .iter()
            .map(|(_, file, _)| std::fs::metadata(dir.join(file)).map_or(0, |m| m.len()))
            .collect();
        Marks {
            dir: dir.to_path_buf(),
            ends,
        }
    }

    /// Requests logged since the marks, per project of `projects` (by id).
    pub fn count(&self, projects: &[&str]) -> Vec<Counted> {
        let mut out = vec![
            Counted {
                by_service: vec![0; SERVICES.len()]
            };
            projects.len()
        ];
        for (s, ((_, file, marker), start)) in SERVICES.iter().zip(&self.ends).enumerate() {
            let Ok(bytes) = std::fs::read(self.dir.join(file)) else {
                continue;
            };
            let start = (*start as usize).min(bytes.len());
            let text = String::from_utf8_lossy(&bytes[start..]);
            for line in text.lines().filter(|l| is_request(l, marker)) {
                for (p, id) in projects.iter().enumerate() {
                    if !id.is_empty() && line.contains(id) {
                        out[p].by_service[s] += 1;
                    }
                }
            }
        }
        out
    }
}
