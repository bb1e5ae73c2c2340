//! Klusters' own OpenStack users (Kubernikus's per-kluster service users), when the cloud
//! makes them ([`Cloud::kluster_user_domain`]): ground makes a Pending kluster's user
//! before it starts creating, launch boots servers as that user, deorbit deletes it last.
//! The password is random, sealed in the store before Keystone ever sees it (a replica
//! that dies in between leaves a record the next pass finishes), and opened only to sign
//! in.
//!
//! [`Cloud::kluster_user_domain`]: crate::cloud::Cloud::kluster_user_domain

use kluster::Kluster;

use super::context::Ctx;
use crate::cloud::{CloudError, KlusterUser};
use crate::store::{StoreError, UserRecord};

/// A cloud call's answer inside a store result: store errors fail the kluster's pass,
/// cloud errors become its events.
pub type Tried<T> = Result<Result<T, CloudError>, StoreError>;

/// `k`'s own user, made first when it is not yet (recorded, then made in Keystone);
/// `None` when the cloud makes no kluster users.
pub async fn ensure(k: &Kluster, ctx: &Ctx<'_>) -> Tried<Option<KlusterUser>> {
    let Some(domain) = ctx.cloud().kluster_user_domain() else {
        return Ok(Ok(None));
    };
    let (project, name) = (ctx.project, k.name.as_str());
    let rec = match ctx.store().kluster_user(project, name).await? {
        Some(rec) => rec,
        None => {
            let sealed = ctx.sealer.seal(new_password().as_bytes());
            let Ok(password_sealed) = sealed else {
                return Ok(Err(CloudError::new("sealing a new password failed")));
            };
            let rec = UserRecord {
                user_name: KlusterUser::name_for(name, project),
                domain: domain.to_string(),
                user_id: String::new(),
                password_sealed,
            };
            ctx.store().add_kluster_user(project, name, &rec).await?
        }
    };
    let user = match open(&rec, ctx) {
        Ok(user) => user,
        Err(e) => return Ok(Err(e)),
    };
    if rec.user_id.is_empty() {
        match ctx
            .call(ctx.cloud().ensure_kluster_user(project, &user))
            .await
        {
            Ok(id) => {
                ctx.store().kluster_user_made(project, name, &id).await?;
                tracing::info!(kluster = name, project, user = %user.name, "kluster user made");
            }
            Err(e) => return Ok(Err(e)),
        }
    }
    Ok(Ok(Some(user)))
}

/// Repairs `k`'s user after Keystone refused it (deleted, disabled, locked, expired, or its
/// password changed by hand): a new password (never one the history holds), then made,
/// enabled, exempted and granted its roles again as at first; says so in an event.
pub async fn repair(k: &Kluster, ctx: &Ctx<'_>, why: &CloudError) -> Tried<()> {
    let (project, name) = (ctx.project, k.name.as_str());
    let Some(rec) = ctx.store().kluster_user(project, name).await? else {
        return Ok(Ok(()));
    };
    let Ok(sealed) = ctx.sealer.seal(new_password().as_bytes()) else {
        return Ok(Err(CloudError::new("sealing a new password failed")));
    };
    ctx.store()
        .renew_kluster_user(project, name, &sealed)
        .await?;
    let made = ensure(k, ctx).await?;
    let message = match &made {
        Ok(_) => format!(
            "Kluster user {} could not sign in ({why}); it was given a new password, enabled and granted its roles again",
            rec.user_name
        ),
        Err(e) => format!(
            "Kluster user {} could not sign in ({why}) and could not be repaired: {e}",
            rec.user_name
        ),
    };
    ctx.warn(k, kluster::EventReason::FailedCreateNode, &message)
        .await?;
    Ok(made.map(drop))
}

/// Deletes `k`'s user in the cloud, then forgets it; nothing to do without one.
pub async fn remove(k: &Kluster, ctx: &Ctx<'_>) -> Tried<()> {
    let (project, name) = (ctx.project, k.name.as_str());
    let Some(rec) = ctx.store().kluster_user(project, name).await? else {
        return Ok(Ok(()));
    };
    if let Err(e) = ctx
        .call(ctx.cloud().delete_kluster_user(project, &rec.user_name))
        .await
    {
        return Ok(Err(e));
    }
    ctx.store().forget_kluster_user(project, name).await?;
    tracing::info!(kluster = name, project, user = %rec.user_name, "kluster user deleted");
    Ok(Ok(()))
}

/// The stored user with its password opened.
fn open(rec: &UserRecord, ctx: &Ctx<'_>) -> Result<KlusterUser, CloudError> {
    let plain = ctx.sealer.open(&rec.password_sealed).map_err(|_| {
        CloudError::new(format!(
            "the password of kluster user {} cannot be opened: was controller_ca_key changed?",
            rec.user_name
        ))
    })?;
    let password = String::from_utf8(plain)
        .map_err(|_| CloudError::new("a kluster user's stored password is not text"))?;
    Ok(KlusterUser {
        name: rec.user_name.clone(),
        domain: rec.domain.clone(),
        password,
    })
}

/// 32 random bytes, base64url (43 characters).
fn new_password() -> String {
    use base64::Engine as _;
    use rand_core::RngCore;
    let mut bytes = [0u8; 32];
    rand_core::OsRng.fill_bytes(&mut bytes);
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}
