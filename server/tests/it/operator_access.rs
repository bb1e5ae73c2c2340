//! Who sees the operator pages, through the dashboard in process against the real local
//! Keystone: a project member and a project admin get a 403 in words and nothing of another
//! project from every ops and audit page and server function (and no link to them); a
//! cloud admin (user `admin`, project `cloud_admin`) sees every project.

use crate::common::*;

/// Signs the seeded cloud admin in (user admin, domain Default, project cloud_admin).
async fn login_cloud_admin(c: &reqwest::Client, srv: &TestServer) {
    let password =
        std::env::var("KS_ADMIN_PASSWORD").unwrap_or_else(|_| "admin-secret".to_string());
    let r = call(
        c,
        srv,
        "login",
        &[
            ("user_name", "admin"),
            ("password", &password),
            ("user_domain", "Default"),
            ("project", "cloud_admin"),
        ],
    )
    .await;
    assert_eq!(r.status(), 200, "{}", r.text().await.unwrap_or_default());
}

/// Creates kluster `name` in alice's project `staging`; returns that project's id.
async fn create_in_staging(srv: &TestServer, name: &str) -> String {
    let staging = user_token("alice", "staging").await;
    let id = keystone()
        .validate(&staging, &staging)
        .await
        .unwrap()
        .project
        .unwrap()
        .id;
    let r = reqwest::Client::new()
        .post(format!("{}/api/v1/clusters", srv.controller_url))
        .header("x-auth-token", staging.expose())
        .body(format!(r#"{{"name":"{name}","spec":{{}}}}"#))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 201);
    id
}

#[tokio::test]
async fn project_users_get_403_in_words_and_no_project_data_from_the_operator_pages() {
    let srv = spawn(|_| {}).await;
    create_kluster(&srv, "alice", r#"{"name":"secret-one","spec":{}}"#).await;
    let staging_id = create_in_staging(&srv, "staged-one").await;
    let bob = browser();
    login(&bob, &srv, "bob", "demo").await;
    for path in ["/ops", "/ops/timeline", "/audit"] {
        let (status, _, body) = page(&bob, &srv, path).await;
        assert!(status == 200 || status == 403, "{path}: {status}");
        assert!(
            body.contains("for cloud admins only") || body.contains("for admins of the project"),
            "{path}: no 403 in words"
        );
        assert!(
            !body.contains("secret-one") && !body.contains("staged-one"),
            "{path} leaks a kluster"
        );
        assert!(
            !body.contains("Quota use by project"),
            "{path}: the 403 is said once, not per section"
        );
        assert!(
            !body.contains("ops-events") && !body.contains("quota-table"),
            "{path}"
        );
    }
    let (_, _, home) = page(&bob, &srv, "/").await;
    assert!(
        !home.contains("href=\"/ops\""),
        "no Operations link for project users"
    );
    assert!(
        !home.contains("href=\"/audit\""),
        "no Audit link for members"
    );
    // Server functions directly: the same 403 words, no data.
    for f in ["ops_attention", "ops_quotas"] {
        let r = call(&bob, &srv, f, &[]).await;
        assert_eq!(r.status(), 403, "{f}");
        let text = r.text().await.unwrap();
        assert!(text.contains("for cloud admins only"), "{f}: {text}");
        assert!(!text.contains("secret-one"));
    }
    let r = call(&bob, &srv, "ops_events", &[("project", "")]).await;
    assert_eq!(r.status(), 403);

    // A project admin (alice in demo) gets nothing of another project (staging) either.
    let alice = browser();
    login(&alice, &srv, "alice", "demo").await;
    let (_, _, home) = page(&alice, &srv, "/").await;
    assert!(
        !home.contains("href=\"/ops\""),
        "no Operations link for project admins"
    );
    let filtered = format!("/ops/timeline?project={staging_id}");
    for path in ["/ops", "/ops/timeline", filtered.as_str()] {
        let (status, _, body) = page(&alice, &srv, path).await;
        assert!(status == 200 || status == 403, "{path}: {status}");
        assert!(
            body.contains("for cloud admins only"),
            "{path}: no 403 in words"
        );
        assert!(
            !body.contains("staged-one") && !body.contains("quota-table"),
            "{path} leaks"
        );
    }
    let (_, _, own) = page(&alice, &srv, "/audit").await;
    assert!(
        own.contains("secret-one") && !own.contains("staged-one"),
        "own project only"
    );
    let (_, _, other) = page(&alice, &srv, &format!("/audit?project={staging_id}")).await;
    assert!(
        other.contains("audit trail is for cloud admins only") && !other.contains("staged-one"),
        "{other}"
    );
    for (f, form) in [
        ("ops_attention", vec![]),
        ("ops_quotas", vec![]),
        ("ops_events", vec![("project", staging_id.as_str())]),
        (
            "audit_records",
            vec![
                ("kluster", ""),
                ("user", ""),
                ("action", ""),
                ("since", ""),
                ("project", staging_id.as_str()),
            ],
        ),
    ] {
        let r = call(&alice, &srv, f, &form).await;
        assert_eq!(r.status(), 403, "{f}");
        assert!(!r.text().await.unwrap().contains("staged-one"), "{f}");
    }

    // A cloud admin sees every project.
    let admin = browser();
    login_cloud_admin(&admin, &srv).await;
    let (_, _, home) = page(&admin, &srv, "/").await;
    assert!(
        home.contains("href=\"/ops\""),
        "Operations link for cloud admins"
    );
    let (_, _, ops) = page(&admin, &srv, "/ops").await;
    assert!(
        ops.contains("quota-table") && ops.contains("demo") && ops.contains("staging"),
        "quota per project"
    );
    let (_, _, tl) = page(&admin, &srv, "/ops/timeline").await;
    assert!(
        tl.contains("ops-events") || tl.contains("No events"),
        "{tl}"
    );
    let (_, _, audit) = page(&admin, &srv, "/audit?kluster=secret-one").await;
    assert!(
        audit.contains("secret-one") && audit.contains("create"),
        "audit for cloud admins"
    );
    let (_, _, all) = page(&admin, &srv, "/audit").await;
    assert!(
        all.contains("secret-one") && all.contains("staged-one"),
        "every project"
    );
    // Alice (project admin) sees her project's trail with filters from the URL.
    let (_, _, a) = page(&alice, &srv, "/audit?action=create").await;
    assert!(a.contains("audit-table") && a.contains("secret-one") && a.contains("alice@demo"));
    let (_, _, none) = page(&alice, &srv, "/audit?action=delete").await;
    assert!(none.contains("No audit records match"));
    let (_, _, bad) = page(&alice, &srv, "/audit?since=tomorrow").await;
    assert!(bad.contains("is not a time"));
}
