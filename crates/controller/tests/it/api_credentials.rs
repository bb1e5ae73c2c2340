//! A kluster's events, setup info and credentials through the real router: kubeconfigs
//! signed by the kluster's CA, bootstrap config, kubeadm secret and chart values.

use crate::common::*;
use serde_json::{json, Value};

#[tokio::test]
async fn events_info_and_oidc_of_a_kluster() {
    let (app, store) = app_with(&url()).await;
    let alice = token("alice", "demo").await;
    let bob = token("bob", "demo").await;
    create(&app, &alice, kluster("ev", None)).await;
    let (s, ev) = call(&app, "GET", "/api/v1/clusters/ev/events", Some(&bob), None).await;
    assert_eq!((s, ev), (200, json!([])));
    let account = account_of(&alice).await;
    store
        .record_event(
            &account,
            "ev",
            kluster::EventType::Warning,
            &kluster::EventReason::FailedCreateNode,
            "Quota exceeded for instances",
        )
        .await
        .unwrap();
    store
        .record_event(
            &account,
            "ev",
            kluster::EventType::Warning,
            &kluster::EventReason::FailedCreateNode,
            "Quota exceeded for instances",
        )
        .await
        .unwrap();
    let (_, ev) = call(&app, "GET", "/api/v1/clusters/ev/events", Some(&bob), None).await;
    assert_eq!(ev[0]["reason"], "FailedCreateNode");
    assert_eq!(ev[0]["type"], "Warning");
    assert_eq!(ev[0]["count"], 2);
    assert!(ev[0]["firstTimestamp"].as_str().unwrap().ends_with('Z'));

    let (s, info) = call(&app, "GET", "/api/v1/clusters/ev/info", Some(&bob), None).await;
    assert_eq!(s, 200);
    let cmd = info["setupCommand"].as_str().unwrap();
    assert!(
        cmd.starts_with(
            "kubernikusctl auth init --username bob --user-domain-name demo --project-id "
        ),
        "{cmd}"
    );
    assert!(cmd.ends_with("--name ev"), "{cmd}");

    let (s, e) = call(
        &app,
        "GET",
        "/api/v1/clusters/ev/credentials/oidc",
        Some(&bob),
        None,
    )
    .await;
    assert_eq!(s, 404);
    assert_error(&e, 404, "OIDC is not configured");
    let (s, _) = call(
        &app,
        "GET",
        "/api/v1/clusters/none/events",
        Some(&bob),
        None,
    )
    .await;
    assert_eq!(s, 404);
}

#[tokio::test]
async fn credentials_give_a_kubeconfig_signed_by_the_klusters_ca_that_kubectl_reads() {
    use base64::Engine;
    use x509_cert::der::DecodePem;
    let app = app().await;
    let alice = token("alice", "demo").await;
    let bob = token("bob", "demo").await;
    let (s, k) = create(&app, &alice, kluster("creds", None)).await;
    assert_eq!(s, 201, "{k}");
    let apiserver = k["status"]["apiserver"].as_str().unwrap().to_string();
    assert!(apiserver.starts_with("https://creds-"), "{apiserver}");

    let (s, c) = call(
        &app,
        "GET",
        "/api/v1/clusters/creds/credentials",
        Some(&bob),
        None,
    )
    .await;
    assert_eq!(s, 200, "{c}");
    let kubeconfig = c["kubeconfig"].as_str().unwrap().to_string();
    let field = |name: &str| -> Vec<u8> {
        let line = kubeconfig
            .lines()
            .find(|l| l.trim_start().starts_with(name))
            .unwrap();
        let b64 = line.split_once(": ").unwrap().1.trim();
        base64::engine::general_purpose::STANDARD
            .decode(b64)
            .unwrap()
    };
    let ca = x509_cert::Certificate::from_pem(field("certificate-authority-data")).unwrap();
    let cert = x509_cert::Certificate::from_pem(field("client-certificate-data")).unwrap();
    assert_eq!(
        cert.tbs_certificate.issuer, ca.tbs_certificate.subject,
        "issued by the kluster's CA"
    );
    let subject = cert.tbs_certificate.subject.to_string();
    assert!(
        subject.contains("CN=bob@demo") && subject.contains("O=os:kubernetes_member"),
        "{subject}"
    );
    let v = &cert.tbs_certificate.validity;
    assert_eq!(
        v.not_after.to_unix_duration().as_secs() - v.not_before.to_unix_duration().as_secs(),
        86_400
    );
    // Verify the signature with the CA's public key.
    {
        use p256::ecdsa::{signature::Verifier, DerSignature, VerifyingKey};
        use p256::pkcs8::DecodePublicKey;
        use x509_cert::der::Encode;
        let spki = ca.tbs_certificate.subject_public_key_info.to_der().unwrap();
        let vk = VerifyingKey::from_public_key_der(&spki).unwrap();
        let sig = DerSignature::from_bytes(cert.signature.raw_bytes()).unwrap();
        vk.verify(&cert.tbs_certificate.to_der().unwrap(), &sig)
            .expect("client cert signed by the CA");
    }
    // Every call mints a new certificate.
    let (_, again) = call(
        &app,
        "GET",
        "/api/v1/clusters/creds/credentials",
        Some(&bob),
        None,
    )
    .await;
    assert_ne!(again["kubeconfig"], c["kubeconfig"]);

    // kubectl (Debian's kubernetes-client) reads it.
    let path = std::env::temp_dir().join(format!("mc-kubeconfig-{}", std::process::id()));
    std::fs::write(&path, &kubeconfig).unwrap();
    let out = std::process::Command::new("kubectl")
        .args(["config", "view", "--raw", "-o", "json", "--kubeconfig"])
        .arg(&path)
        .output()
        .expect("kubectl must be installed (scripts/setup installs kubernetes-client)");
    assert!(
        out.status.success(),
        "kubectl: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let view: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(view["current-context"], "creds");
    assert_eq!(view["clusters"][0]["name"], "creds");
    assert_eq!(view["clusters"][0]["cluster"]["server"], apiserver.as_str());
    assert_eq!(view["contexts"][0]["context"]["user"], "bob@demo");
    let _ = std::fs::remove_file(path);

    // Another project's kluster gives nothing.
    let staging = token("alice", "staging").await;
    assert_eq!(
        call(
            &app,
            "GET",
            "/api/v1/clusters/creds/credentials",
            Some(&staging),
            None
        )
        .await
        .0,
        404
    );
}

#[tokio::test]
async fn bootstrap_config_for_admins_kubeadm_secret_only_for_seed_kubeadm_klusters() {
    let app = app().await;
    let alice = token("alice", "demo").await;
    let bob = token("bob", "demo").await;
    create(&app, &alice, kluster("nodes", None)).await;
    let (s, b) = call(
        &app,
        "GET",
        "/api/v1/clusters/nodes/bootstrap",
        Some(&alice),
        None,
    )
    .await;
    assert_eq!(s, 200, "{b}");
    assert!(b["kubeletClientsCA"]
        .as_str()
        .unwrap()
        .starts_with("-----BEGIN CERTIFICATE-----"));
    assert_eq!(
        b["kubeletClientsCAFile"],
        "/etc/kubernetes/certs/kubelet-clients-ca.pem"
    );
    let config = b["config"].as_str().unwrap();
    assert!(
        config.contains("clusterDNS:\n- 198.18.128.2")
            && config.contains("clusterDomain: cluster.local"),
        "{config}"
    );
    assert!(b["kubeconfig"]
        .as_str()
        .unwrap()
        .contains("system:bootstrap:nodes"));
    let (s, e) = call(
        &app,
        "GET",
        "/api/v1/clusters/nodes/bootstrap",
        Some(&bob),
        None,
    )
    .await;
    assert_eq!(s, 403, "members may not bootstrap nodes: {e}");

    let (s, e) = call(
        &app,
        "GET",
        "/api/v1/clusters/nodes/kubeadmsecret",
        Some(&alice),
        None,
    )
    .await;
    assert_eq!(s, 404);
    assert_error(&e, 404, "not a seedKubeadm kluster");
    let mut k: Value = serde_json::from_str(&kluster("kadm", Some("10.7.0.0/16"))).unwrap();
    k["spec"]["seedKubeadm"] = json!(true);
    assert_eq!(create(&app, &alice, k.to_string()).await.0, 201);
    let (s, sec) = call(
        &app,
        "GET",
        "/api/v1/clusters/kadm/kubeadmsecret",
        Some(&alice),
        None,
    )
    .await;
    assert_eq!(s, 200);
    let secret = sec["secret"].as_str().unwrap();
    assert!(secret.contains("BEGIN CERTIFICATE") && secret.contains("BEGIN PRIVATE KEY"));
    assert_eq!(
        call(
            &app,
            "GET",
            "/api/v1/clusters/kadm/kubeadmsecret",
            Some(&bob),
            None
        )
        .await
        .0,
        403
    );
}

#[tokio::test]
async fn chart_values_are_for_cloud_admins_across_projects() {
    let app = app().await;
    let alice = token("alice", "demo").await;
    create(&app, &alice, kluster("vals", None)).await;
    let account = account_of(&alice).await;
    let path = format!("/api/v1/{account}/clusters/vals/values");
    let (s, e) = call(&app, "GET", &path, Some(&alice), None).await;
    assert_eq!(s, 403, "a project admin is no cloud admin: {e}");
    let cloud_admin = cloud_admin_token().await;
    let (s, v) = call(&app, "GET", &path, Some(&cloud_admin), None).await;
    assert_eq!(s, 200, "{v}");
    let values = v["values"].as_str().unwrap();
    assert!(values.starts_with("name: \"vals\"\n"), "{values}");
    assert!(
        values.contains("serviceCIDR: \"198.18.128.0/17\"") && values.contains("- name: \"small\""),
        "{values}"
    );
    assert!(!values.contains("PRIVATE KEY"));
    let (s, _) = call(
        &app,
        "GET",
        &format!("/api/v1/{account}/clusters/none/values"),
        Some(&cloud_admin),
        None,
    )
    .await;
    assert_eq!(s, 404);
}
