//! `mission-control kubeconfig <kluster>`: an application credential in, the kluster's
//! kubeconfig out on stdout, for CI jobs. The credential comes from the environment
//! (`OS_APPLICATION_CREDENTIAL_ID`, `OS_APPLICATION_CREDENTIAL_SECRET`, as OpenStack's
//! clients read it; never a flag, which `ps` would show); Keystone from `--keystone-url` or
//! `OS_AUTH_URL`; the Kubernikus API from `--controller-url` or `MC_CONTROLLER_PUBLIC_URL`.

use clap::Parser;

/// The subcommand's arguments.
#[derive(Clone, Debug, Parser)]
#[command(
    name = "mission-control kubeconfig",
    about = "Print a kluster's kubeconfig, signing in with the application credential in OS_APPLICATION_CREDENTIAL_ID and OS_APPLICATION_CREDENTIAL_SECRET"
)]
pub struct KubeconfigArgs {
    /// The kluster (in the credential's project).
    pub kluster: String,
    /// Keystone v3 endpoint, e.g. https://identity.example.com/v3.
    #[arg(long, env = "OS_AUTH_URL")]
    pub keystone_url: String,
    /// The Kubernikus API (Mission Control's controller) as users reach it.
    #[arg(long, env = "MC_CONTROLLER_PUBLIC_URL")]
    pub controller_url: String,
    /// The application credential's id.
    #[arg(long, env = "OS_APPLICATION_CREDENTIAL_ID")]
    pub credential_id: String,
    /// A PEM file of CA certificates to trust (a private cloud's own CA) for Keystone and
    /// the controller, beside the built-in and system ones.
    #[arg(long, env = "OS_CACERT")]
    pub ca_file: Option<std::path::PathBuf>,
}

/// Signs in with application credential `args.credential_id` and `secret` and fetches the
/// kubeconfig of `args.kluster` (`GET /api/v1/clusters/{name}/credentials`); the error is
/// a sentence for a person (never with the secret or a token in it).
pub async fn kubeconfig(args: &KubeconfigArgs, secret: &str) -> Result<String, String> {
    if secret.is_empty() {
        return Err("OS_APPLICATION_CREDENTIAL_SECRET is not set: export the application credential's secret".into());
    }
    kluster::validate::kluster_name(&args.kluster)
        .map_err(|e| format!("{:?} is not a kluster name: {e}", args.kluster))?;
    let options = keystone::ClientOptions {
        ca_file: args.ca_file.clone(),
        ..keystone::ClientOptions::default()
    };
    let ks = keystone::Client::with_options(&args.keystone_url, &options)
        .map_err(|e| format!("Keystone URL {:?}: {e}", args.keystone_url))?;
    let auth = keystone::ApplicationCredentialAuth {
        credential: keystone::CredentialRef::Id(args.credential_id.trim()),
        secret,
    };
    let token = ks
        .application_credential_auth(&auth)
        .await
        .map_err(|e| match e {
            keystone::Error::Unauthorized => "Keystone refused the application credential: check OS_APPLICATION_CREDENTIAL_ID and OS_APPLICATION_CREDENTIAL_SECRET (it may have been deleted or have expired)".to_string(),
            e if e.is_unavailable() => format!("Keystone at {} cannot be reached: {e}", args.keystone_url),
            e => format!("Keystone did not sign the credential in: {e}"),
        })?;
    let base = args.controller_url.trim_end_matches('/');
    let url = format!("{base}/api/v1/clusters/{}/credentials", args.kluster);
    let toward_controller = keystone::ClientOptions {
        timeout: std::time::Duration::from_secs(30),
        ..options
    };
    let http = keystone::trust::client_builder(&toward_controller)?
        .build()
        .map_err(|e| e.to_string())?;
    let resp = http
        .get(&url)
        .header("x-auth-token", token.secret.expose())
        .header("accept", "application/json")
        .send()
        .await
        .map_err(|e| {
            format!(
                "The Kubernikus API at {base} cannot be reached: {}",
                e.without_url()
            )
        })?;
    let status = resp.status();
    if !status.is_success() {
        let message = resp
            .json::<kluster::ErrorBody>()
            .await
            .map(|e| e.message)
            .unwrap_or_default();
        return Err(match status.as_u16() {
            404 => format!(
                "There is no kluster {:?} in the credential's project ({message})",
                args.kluster
            ),
            403 => {
                format!("The credential's roles may not read this kluster's credentials: {message}")
            }
            s => format!("The Kubernikus API answered {s}: {message}"),
        });
    }
    let creds: kluster::Credentials = resp
        .json()
        .await
        .map_err(|e| format!("The Kubernikus API's answer is not a kubeconfig: {e}"))?;
    Ok(creds.kubeconfig)
}
