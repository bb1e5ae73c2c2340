//! Application credentials against the real Keystone: the login page's tab signs in with
//! one (a session in the credential's project), `mission-control kubeconfig` turns one into
//! a kubeconfig on stdout, and a wrong secret or a revoked (deleted) credential is refused
//! in words on both paths, the secret never echoed.

use std::process::Command;

use crate::common::{browser, call, create_kluster, keystone, keystone_url, page, post_form};

/// A fresh application credential of alice in project demo: (alice's token, her id, the
/// credential).
async fn new_credential() -> (keystone::Token, keystone::ApplicationCredential) {
    let ks = keystone();
    let alice = ks
        .password_auth(&keystone::PasswordAuth {
            user_name: "alice",
            password: "alice-secret",
            user_domain: "demo",
            project: keystone::ProjectRef::Name {
                name: "demo",
                domain: "demo",
            },
        })
        .await
        .expect("alice signs in");
    let name = format!(
        "mc-server-test-{}-{}",
        std::process::id(),
        time::OffsetDateTime::now_utc().unix_timestamp_nanos()
    );
    let cred = ks
        .create_application_credential(
            &alice.secret,
            &alice.user.id,
            &keystone::NewApplicationCredential {
                name: &name,
                description: Some("server integration test"),
                expires_at: Some(time::OffsetDateTime::now_utc() + time::Duration::hours(1)),
            },
        )
        .await
        .expect("alice creates an application credential");
    (alice, cred)
}

/// Runs `mission-control kubeconfig <kluster>` with the credential in the environment.
fn run_kubeconfig(
    controller: &str,
    kluster: &str,
    id: &str,
    secret: &str,
) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_mission-control"))
        .args(["kubeconfig", kluster, "--keystone-url", &keystone_url()])
        .args(["--controller-url", controller])
        .env_remove("OS_AUTH_URL")
        .env("OS_APPLICATION_CREDENTIAL_ID", id)
        .env("OS_APPLICATION_CREDENTIAL_SECRET", secret)
        .output()
        .expect("the binary runs");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

// Several threads: the binary runs while this process's controller answers it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_application_credential_signs_in_and_gets_a_kubeconfig_until_it_is_revoked() {
    let srv = crate::common::spawn(|_| {}).await;
    create_kluster(&srv, "alice", r#"{"name":"ci","spec":{"nodePools":[{"name":"p","size":1,"flavor":"m1.small","availabilityZone":"az-a"}]}}"#).await;
    let (alice, cred) = new_credential().await;
    let secret = cred.secret.expose().to_string();

    // The login page's tab.
    let c = browser();
    let (s, _, html) = page(&c, &srv, "/login?method=application-credential").await;
    assert_eq!(s, 200);
    assert!(html.contains(r#"name="credential_id""#), "{html}");
    assert!(html.contains(r#"aria-current="page""#) && html.contains("Application credential"));
    let (_, _, html) = page(&c, &srv, "/login").await;
    assert!(html.contains(r#"name="user_name""#) && !html.contains("credential_id"));

    // A wrong secret: refused in words (never echoed).
    let wrong = [
        ("credential_id", cred.id.as_str()),
        ("secret", "not-the-secret"),
    ];
    let r = call(&c, &srv, "login_app_credential", &wrong).await;
    assert_eq!(r.status(), 401);
    let text = r.text().await.unwrap();
    // The hydrated page shows the error's message (AppError's Display) for this variant.
    assert_eq!(text, r#"{"code":"invalid_app_credential"}"#);
    assert!(!text.contains("not-the-secret"));

    // The right one: a session in the credential's project, the klusters listed.
    let right = [
        ("credential_id", cred.id.as_str()),
        ("secret", secret.as_str()),
    ];
    let r = call(&c, &srv, "login_app_credential", &right).await;
    assert_eq!(r.status(), 200, "{}", r.text().await.unwrap_or_default());
    let (s, _, html) = page(&c, &srv, "/").await;
    assert_eq!(s, 200);
    assert!(
        html.contains(r#"href="/klusters/ci""#),
        "the kluster is listed: {html}"
    );

    // CI: the subcommand prints the kubeconfig.
    let (ok, out, err) = run_kubeconfig(&srv.controller_url, "ci", &cred.id, &secret);
    assert!(ok, "{err}");
    assert!(out.starts_with("apiVersion: v1"), "{out}");
    assert!(out.contains("client-certificate-data"), "{out}");
    let (ok, _, err) = run_kubeconfig(&srv.controller_url, "nope", &cred.id, &secret);
    assert!(!ok);
    assert!(err.contains("There is no kluster \"nope\""), "{err}");

    // Revoked: the credential deleted, both paths refuse it in words.
    keystone()
        .delete_application_credential(&alice.secret, &alice.user.id, &cred.id)
        .await
        .expect("alice deletes her credential");
    let (ok, out, err) = run_kubeconfig(&srv.controller_url, "ci", &cred.id, &secret);
    assert!(!ok && out.is_empty());
    assert!(
        err.contains("Keystone refused the application credential"),
        "{err}"
    );
    assert!(!err.contains(&secret), "the secret is never printed");
    let other = browser();
    let r = post_form(&other, &srv, "login_app_credential", &right).await;
    let back = r.headers()["location"].to_str().unwrap().to_string();
    assert_eq!(
        back,
        format!(
            "/login?method=application-credential&error=invalid_app_credential&credential={}",
            cred.id
        )
    );
    let (_, _, html) = page(&other, &srv, &back).await;
    assert!(
        html.contains("The application credential was not accepted"),
        "{html}"
    );
    assert!(
        html.contains(&format!(r#"value="{}""#, cred.id)),
        "the id is kept"
    );
    assert!(!html.contains(&secret));
}
