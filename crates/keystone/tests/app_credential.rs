//! Application credentials against the real local Keystone (`MC_TEST_KEYSTONE_URL`, started
//! by scripts/test): created with alice's password token, signed in with by id and by name,
//! bound to their project, and dead once deleted.

use keystone::{
    ApplicationCredentialAuth, Client, CredentialRef, Error, NewApplicationCredential,
    PasswordAuth, ProjectRef, Token, UserRef,
};

fn keystone() -> Client {
    let url = std::env::var("MC_TEST_KEYSTONE_URL").expect(
        "MC_TEST_KEYSTONE_URL is not set: run the suite with scripts/test, which starts a local Keystone",
    );
    Client::new(&url).unwrap()
}

async fn alice(ks: &Client) -> Token {
    let auth = PasswordAuth {
        user_name: "alice",
        password: "alice-secret",
        user_domain: "demo",
        project: ProjectRef::Name {
            name: "demo",
            domain: "demo",
        },
    };
    ks.password_auth(&auth).await.expect("alice signs in")
}

fn unique(prefix: &str) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    format!("{prefix}-{}-{nanos}", std::process::id())
}

#[tokio::test]
async fn a_credential_signs_in_to_its_project_cannot_rescope_and_dies_when_deleted() {
    let ks = keystone();
    let alice = alice(&ks).await;
    let name = unique("ks-crate-test");
    let expires = time::OffsetDateTime::now_utc() + time::Duration::hours(1);
    let cred = ks
        .create_application_credential(
            &alice.secret,
            &alice.user.id,
            &NewApplicationCredential {
                name: &name,
                description: Some("keystone crate integration test"),
                expires_at: Some(expires),
            },
        )
        .await
        .expect("alice creates an application credential");
    let demo = alice.project.clone().unwrap();
    assert_eq!(cred.project_id, demo.id);
    assert_eq!(cred.name, name);
    let exp = cred.expires_at.expect("expiry read back");
    assert!((exp - expires).abs() < time::Duration::seconds(1), "{exp}");

    // By id: a token of alice, scoped to the credential's project, with her roles there.
    let by_id = ApplicationCredentialAuth {
        credential: CredentialRef::Id(&cred.id),
        secret: cred.secret.expose(),
    };
    let t = ks.application_credential_auth(&by_id).await.unwrap();
    assert_eq!(t.user.name, "alice");
    assert_eq!(
        t.project.as_ref().map(|p| p.id.as_str()),
        Some(demo.id.as_str())
    );
    assert!(
        t.roles.contains(&"kubernetes_admin".to_string()),
        "{:?}",
        t.roles
    );
    assert_eq!(t.application_credential.as_ref().unwrap().id, cred.id);
    ks.validate(&t.secret, &t.secret)
        .await
        .expect("the token validates itself");

    // By name and owner (name + domain, and id).
    for user in [
        UserRef::Name {
            name: "alice",
            domain: "demo",
        },
        UserRef::Id(&alice.user.id),
    ] {
        let by_name = ApplicationCredentialAuth {
            credential: CredentialRef::Name { name: &name, user },
            secret: cred.secret.expose(),
        };
        let t2 = ks.application_credential_auth(&by_name).await.unwrap();
        assert_eq!(t2.project.unwrap().id, demo.id);
    }

    // Bound to its project: Keystone refuses to rescope it, in words.
    let err = ks
        .rescope(
            &t.secret,
            ProjectRef::Name {
                name: "staging",
                domain: "demo",
            },
        )
        .await
        .unwrap_err();
    assert!(
        matches!(&err, Error::Forbidden(m) if m.contains("delegated token")),
        "{err:?}"
    );

    let wrong = ApplicationCredentialAuth {
        credential: CredentialRef::Id(&cred.id),
        secret: "not-the-secret",
    };
    let err = ks.application_credential_auth(&wrong).await.unwrap_err();
    assert!(matches!(err, Error::Unauthorized), "{err:?}");

    // Deleted (revoked): no more sign-ins, and its tokens are no longer accepted.
    ks.delete_application_credential(&alice.secret, &alice.user.id, &cred.id)
        .await
        .unwrap();
    let err = ks.application_credential_auth(&by_id).await.unwrap_err();
    assert!(matches!(err, Error::Unauthorized), "{err:?}");
    assert!(!err.to_string().contains(cred.secret.expose()));
    let err = ks.validate(&alice.secret, &t.secret).await.unwrap_err();
    assert!(matches!(err, Error::NotFound), "{err:?}");
    let err = ks
        .delete_application_credential(&alice.secret, &alice.user.id, &cred.id)
        .await
        .unwrap_err();
    assert!(matches!(err, Error::NotFound), "{err:?}");
}

#[tokio::test]
async fn a_token_of_a_credential_can_revoke_itself() {
    let ks = keystone();
    let alice = alice(&ks).await;
    let name = unique("ks-crate-revoke");
    let cred = ks
        .create_application_credential(
            &alice.secret,
            &alice.user.id,
            &NewApplicationCredential {
                name: &name,
                description: None,
                expires_at: None,
            },
        )
        .await
        .unwrap();
    assert!(cred.expires_at.is_none());
    let auth = ApplicationCredentialAuth {
        credential: CredentialRef::Id(&cred.id),
        secret: cred.secret.expose(),
    };
    let t = ks.application_credential_auth(&auth).await.unwrap();
    // What sign-out does with a session's token.
    ks.revoke(&t.secret, &t.secret).await.unwrap();
    let err = ks.validate(&alice.secret, &t.secret).await.unwrap_err();
    assert!(matches!(err, Error::NotFound), "{err:?}");
    // The credential itself still works after its token is revoked.
    ks.application_credential_auth(&auth).await.unwrap();
    ks.delete_application_credential(&alice.secret, &alice.user.id, &cred.id)
        .await
        .unwrap();
}
