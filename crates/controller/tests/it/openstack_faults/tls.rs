//! The test cloud's Keystone and Nova behind nginx with TLS, their certificate signed by a
//! CA this test makes (openssl), Nova registered as a Keystone region of its own (`TLS`),
//! so other tests keep plain HTTP. A controller given the CA file
//! (`controller_openstack_ca_file`) signs in and boots a node; one without it is not ready,
//! and `/readyz` says which Keystone and what is wrong with its certificate.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use super::rate_limit::Front;
use super::{body, PROJECT};
use crate::common::openstack::{cloud_env, env, start, until, Admin, Direct, ONE_AT_A_TIME};

/// The region of the TLS front.
const REGION: &str = "TLS";

/// Makes a CA and a certificate for 127.0.0.1 signed by it in `dir`: `ca.pem`,
/// `server.pem`, `server.key`.
fn certificates(dir: &Path) {
    let run = |args: &[&str]| {
        let out = Command::new("openssl")
            .args(args)
            .current_dir(dir)
            .output()
            .expect("openssl runs");
        assert!(
            out.status.success(),
            "openssl {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    run(&[
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-days",
        "1",
        "-subj",
        "/CN=Mission Control test CA",
        "-keyout",
        "ca.key",
        "-out",
        "ca.pem",
    ]);
    run(&[
        "req",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-subj",
        "/CN=127.0.0.1",
        "-keyout",
        "server.key",
        "-out",
        "server.csr",
    ]);
    std::fs::write(dir.join("san.ext"), "subjectAltName=IP:127.0.0.1\n").expect("san.ext");
    run(&[
        "x509",
        "-req",
        "-in",
        "server.csr",
        "-CA",
        "ca.pem",
        "-CAkey",
        "ca.key",
        "-CAcreateserial",
        "-days",
        "1",
        "-extfile",
        "san.ext",
        "-out",
        "server.pem",
    ]);
}

/// `host:port` of a URL.
fn addr_of(url: &str) -> Option<String> {
    Some(url.split_once("://")?.1.split('/').next()?.to_string())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_private_ca_is_trusted_when_configured_and_named_when_not() {
    let Some(auth_url) = cloud_env() else { return };
    let (Some(nova), Some(keystone)) = (
        env("COMPUTE_URL").and_then(|u| addr_of(&u)),
        addr_of(&auth_url),
    ) else {
        return;
    };
    let _one = ONE_AT_A_TIME.lock().await;
    let dir = std::env::temp_dir().join(format!("mc-tls-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    certificates(&dir);
    let tls = Some((dir.join("server.pem"), dir.join("server.key")));
    let ks_front = Front::start_with("tls-keystone", &keystone, tls.clone(), false);
    let nova_front = Front::start_with("tls-nova", &nova, tls, false);
    let admin = Admin::sign_in(&auth_url).await;
    admin
        .register(REGION, &format!("https://{}", nova_front.addr))
        .await;
    let secure_auth = format!("https://{}/v3", ks_front.addr);
    let password = env("SERVICE_PASSWORD").unwrap_or("mission-control-secret".into());
    let password = std::env::var("KS_SERVICE_PASSWORD").unwrap_or(password);
    let cloud = |ca: Option<&Path>| {
        let mut c = controller::cloud::openstack::OpenStackConfig::new(
            &secure_auth,
            "mission-control",
            &password,
            "Default",
            "service",
        );
        c.region = REGION.into();
        c.timeout = Duration::from_secs(20);
        c.ca_file = ca.map(Path::to_path_buf);
        controller::cloud::choice::CloudChoice::OpenStack(Box::new(c))
    };

    // Without the CA: not ready, saying which Keystone and what is wrong.
    let untrusting = start(&auth_url, cloud(None), "tls-no-ca").await;
    let (status, said) =
        crate::common::call(&untrusting.router, "GET", "/readyz", None, None).await;
    let said = said.as_str().unwrap_or_default().to_string();
    assert_eq!(status, 503, "{said}");
    assert!(said.contains(&secure_auth), "names the endpoint: {said}");
    assert!(
        said.to_lowercase().contains("certificate"),
        "names the certificate problem: {said}"
    );
    eprintln!("without the CA: {said}");
    drop(untrusting);

    // With it: ready, and a node boots through the TLS Nova.
    let running = start(&auth_url, cloud(Some(&dir.join("ca.pem"))), "tls-ca").await;
    let (status, said) = crate::common::call(&running.router, "GET", "/readyz", None, None).await;
    assert_eq!(status, 200, "{said}");
    let tok = crate::common::demo_token(&auth_url, "alice", PROJECT).await;
    let tok = tok.expose().to_string();
    let name = format!(
        "{}t{}",
        super::project::KLUSTERS,
        std::process::id() % 100_000
    );
    let (status, v) =
        crate::common::create(&running.router, &tok, body(&name, 1).to_string()).await;
    assert_eq!(status, 201, "{v}");
    let direct = Direct {
        http: reqwest::Client::new(),
        token: tok.clone(),
        compute: env("COMPUTE_URL").expect("MC_TEST_OS_COMPUTE_URL"),
        network: env("NETWORK_URL").expect("MC_TEST_OS_NETWORK_URL"),
    };
    until(
        Duration::from_secs(120),
        "a node ACTIVE through TLS",
        || async {
            let s = direct.servers(&name).await;
            (s.len() == 1 && s[0]["status"] == "ACTIVE").then_some(())
        },
    )
    .await;
    let path = format!("/api/v1/clusters/{name}");
    let (status, _) = crate::common::call(&running.router, "DELETE", &path, Some(&tok), None).await;
    assert!(matches!(status, 200 | 202 | 204));
    until(Duration::from_secs(120), "the kluster gone", || async {
        let (status, _) =
            crate::common::call(&running.router, "GET", &path, Some(&tok), None).await;
        (status == 404).then_some(())
    })
    .await;
    let nova_hits = nova_front.requests();
    assert!(nova_hits > 0, "Nova was reached through the TLS front");
    eprintln!(
        "through TLS: {nova_hits} Nova calls, {} Keystone calls",
        ks_front.requests()
    );
    admin.unregister(REGION).await;
    let _ = std::fs::remove_dir_all(&dir);
}
