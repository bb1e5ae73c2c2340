//! Token validation and policy against the real local Keystone (`MC_TEST_KEYSTONE_URL`,
//! started by scripts/test) with the seeded service user.

use std::time::Duration;

use crate::common::{demo_token, service, url};
use controller::auth::{AuthError, Policy, TokenValidator};
use testkit::eventually;

async fn user_token(user: &str) -> keystone::TokenSecret {
    demo_token(&url(), user, "demo").await
}

#[tokio::test]
async fn real_tokens_give_principals_and_policy_decides_per_role() {
    let v = TokenValidator::new(
        keystone::Client::new(&url()).unwrap(),
        service("mission-control-secret"),
        Duration::from_secs(60),
    );
    let policy = Policy::kubernikus();
    let alice = v
        .principal(Some(user_token("alice").await.expose()))
        .await
        .unwrap();
    assert_eq!(
        (
            alice.name.as_str(),
            alice.domain.as_str(),
            alice.account_name.as_str()
        ),
        ("alice", "demo", "demo")
    );
    if let Ok(id) = std::env::var("KS_DEMO_PROJECT_ID") {
        assert_eq!(alice.account, id);
    }
    assert!(policy.allows("CreateCluster", &alice.creds()));
    let bob = v
        .principal(Some(user_token("bob").await.expose()))
        .await
        .unwrap();
    assert!(policy.allows("ListClusters", &bob.creds()));
    assert!(
        !policy.allows("CreateCluster", &bob.creds()),
        "a member cannot create"
    );
}

#[tokio::test]
async fn revoked_and_made_up_tokens_are_invalid() {
    let v = TokenValidator::new(
        keystone::Client::new(&url()).unwrap(),
        service("mission-control-secret"),
        Duration::ZERO,
    );
    let t = user_token("alice").await;
    assert!(v.principal(Some(t.expose())).await.is_ok());
    keystone::Client::new(&url())
        .unwrap()
        .revoke(&t, &t)
        .await
        .unwrap();
    assert_eq!(v.principal(Some(t.expose())).await, Err(AuthError::Invalid));
    assert_eq!(
        v.principal(Some("gAAAAAmadeup")).await,
        Err(AuthError::Invalid)
    );
}

#[tokio::test]
async fn broken_service_credentials_fail_closed() {
    let v = TokenValidator::new(
        keystone::Client::new(&url()).unwrap(),
        service("wrong"),
        Duration::from_secs(60),
    );
    let t = user_token("alice").await;
    let err = v.principal(Some(t.expose())).await.unwrap_err();
    assert_eq!((err.clone(), err.status()), (AuthError::Unavailable, 503));
}

/// Needs the Keystone with 10-second tokens that scripts/test starts.
#[tokio::test]
async fn the_service_token_keeps_working_past_its_own_expiry() {
    let short = std::env::var("MC_TEST_SHORT_KEYSTONE_URL")
        .expect("MC_TEST_SHORT_KEYSTONE_URL is not set: run the suite with scripts/test");
    let ks = keystone::Client::new(&short).unwrap();
    let v = TokenValidator::new(
        ks.clone(),
        service("mission-control-secret"),
        Duration::ZERO,
    );
    let fresh = || demo_token(&short, "alice", "demo");
    let t = fresh().await;
    assert!(v.principal(Some(t.expose())).await.is_ok());
    // A token issued after the validator's service token expires after it: once Keystone
    // refuses this one, every token of this Keystone, the service token included, has
    // expired (Keystone's own clock decides; nothing here guesses how long that takes).
    let later = fresh().await;
    eventually(
        Duration::from_secs(30),
        "a token of the short-lived Keystone expires",
        || async {
            use keystone::Error::{NotFound, Unauthorized};
            matches!(
                ks.validate(&later, &later).await,
                Err(Unauthorized | NotFound)
            )
        },
    )
    .await;
    assert_eq!(
        v.principal(Some(t.expose())).await,
        Err(AuthError::Invalid),
        "the user's token expired"
    );
    let t = fresh().await;
    let p = v
        .principal(Some(t.expose()))
        .await
        .expect("validation works past the service token's expiry");
    assert_eq!(p.name, "alice");
}
