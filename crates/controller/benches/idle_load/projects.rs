//! The benchmark's projects: `load0` .. `load<n-1>` of the test cloud, made (or found) by
//! `scripts/openstack.sh seed-load`, each a tenant's like demo's, with user `loader`.

use std::path::PathBuf;
use std::process::Command;

/// The user that owns the klusters in the load projects, and its password and domain.
pub const USER: (&str, &str, &str) = ("loader", "loader-secret", "demo");

/// The load projects' (name, id), `n` of them, made where missing; panics, saying why,
/// when the script fails.
pub fn seed(n: usize) -> Vec<(String, String)> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let var = |k: &str| std::env::var(k).unwrap_or_default();
    let auth = var("MC_TEST_OS_AUTH_URL");
    let port = auth
        .rsplit(':')
        .next()
        .and_then(|tail| tail.split('/').next())
        .unwrap_or("5000")
        .to_string();
    let mut cmd = Command::new("bash");
    cmd.arg(root.join("scripts/openstack.sh"))
        .args(["seed-load", &n.to_string()])
        .env("KS_PORT", port);
    for (to, from) in [
        ("OS_HOME", "MC_TEST_OS_HOME"),
        ("KS_HOME", "MC_TEST_OS_KS_HOME"),
        ("KS_ADMIN_PASSWORD", "MC_TEST_OS_ADMIN_PASSWORD"),
        ("OS_CONTROLLER_ROLES", "MC_TEST_OS_CONTROLLER_ROLES"),
    ] {
        if let Ok(v) = std::env::var(from) {
            cmd.env(to, v);
        }
    }
    let out = cmd.output().expect("scripts/openstack.sh runs");
    assert!(
        out.status.success(),
        "seed-load failed (is MC_TEST_OS_KS_HOME set? scripts/services up writes it): {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let projects: Vec<(String, String)> = text
        .lines()
        .filter_map(|l| l.split_once(' '))
        .map(|(a, b)| (a.to_string(), b.trim().to_string()))
        .collect();
    assert_eq!(projects.len(), n, "seed-load printed {text}");
    projects
}
