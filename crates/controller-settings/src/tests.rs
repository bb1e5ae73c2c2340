//! Tests of the settings type: the standalone flags, layering, and the docs written from
//! it.

use super::*;
use clap::{CommandFactory, FromArgMatches, Parser};

#[derive(Debug, Parser)]
struct Standalone {
    #[command(flatten)]
    controller: ControllerSettings,
}

#[test]
fn the_standalone_binary_takes_its_flags_without_the_prefix() {
    let cmd = standalone_flags(Standalone::command());
    let m = cmd
        .try_get_matches_from([
            "c",
            "--listen",
            "127.0.0.1:9",
            "--db",
            "x.db",
            "--simulator-api",
        ])
        .unwrap();
    let s = Standalone::from_arg_matches(&m).unwrap().controller;
    assert_eq!(s.controller_listen, Some("127.0.0.1:9".parse().unwrap()));
    assert_eq!(s.controller_database.as_deref(), Some("x.db"));
    assert_eq!(s.controller_simulator_api, Some(true));
    let refused = standalone_flags(Standalone::command()).try_get_matches_from([
        "c",
        "--controller-listen",
        "127.0.0.1:9",
    ]);
    assert!(refused.is_err());
}

#[test]
fn set_fields_win_and_every_field_is_documented_with_its_default() {
    let flag = ControllerSettings {
        controller_lease_seconds: Some(2.0),
        ..Default::default()
    };
    let file = ControllerSettings {
        controller_lease_seconds: Some(9.0),
        controller_quota_cores: Some(4),
        ..Default::default()
    };
    let s = flag.over(file);
    assert_eq!(
        (s.controller_lease_seconds, s.controller_quota_cores),
        (Some(2.0), Some(4))
    );
    let cmd = Standalone::command();
    let mut n = 0;
    for a in cmd.get_arguments().filter(|a| a.get_id() != "help") {
        let help = a.get_help().map(|h| h.to_string()).unwrap_or_default();
        assert!(
            help.contains("Default: ") || help.contains("required"),
            "{} names no default: {help}",
            a.get_id()
        );
        n += 1;
    }
    assert_eq!(n, 41, "a field was added or removed: update over() too");
}

/// The table of these settings in docs/operations.md, as the type says it.
fn table() -> String {
    let mut out = String::from(
        "| key (dashboard) | flag (standalone) | variable | what; default |\n|---|---|---|---|\n",
    );
    let standalone = standalone_flags(Standalone::command());
    for a in standalone.get_arguments().filter(|a| a.get_id() != "help") {
        let help = a.get_help().map(|h| h.to_string()).unwrap_or_default();
        let env = a
            .get_env()
            .map(|e| e.to_string_lossy().into_owned())
            .unwrap_or_default();
        out += &format!(
            "| `{}` | `--{}` | `{env}` | {} |\n",
            a.get_id(),
            a.get_long().unwrap_or_default(),
            help.replace('|', "\\|")
        );
    }
    out
}

#[test]
fn the_operations_guide_lists_every_setting_as_the_type_says_it() {
    const BEGIN: &str = "<!-- controller settings: made by controller-settings' tests -->\n";
    const END: &str = "<!-- end of the controller settings -->";
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/operations.md");
    let doc = std::fs::read_to_string(&path).expect("docs/operations.md");
    let (Some(b), Some(e)) = (doc.find(BEGIN), doc.find(END)) else {
        panic!("docs/operations.md lacks the markers {BEGIN:?} … {END:?}");
    };
    let (now, want) = (&doc[b + BEGIN.len()..e], table());
    if now != want && std::env::var_os("MC_WRITE_DOCS").is_some() {
        let doc = format!("{}{BEGIN}{want}{}", &doc[..b], &doc[e..]);
        std::fs::write(&path, doc).expect("docs/operations.md written");
        return;
    }
    assert_eq!(
        now, want,
        "docs/operations.md's table of the controller settings is stale: \
         MC_WRITE_DOCS=1 cargo test -p controller-settings writes it anew"
    );
}

#[test]
fn debug_shows_no_password() {
    let s = ControllerSettings {
        controller_service_password: Some("service-secret".into()),
        controller_openstack_password: Some("cloud-secret".into()),
        controller_database: Some("postgres://u:db-secret@h/d".into()),
        controller_service_user: Some("mission-control".into()),
        ..Default::default()
    };
    let shown = format!("{s:?}");
    assert!(shown.contains("mission-control"), "{shown}");
    for secret in ["service-secret", "cloud-secret", "db-secret"] {
        assert!(!shown.contains(secret), "{shown}");
    }
}

#[test]
fn the_documented_defaults_are_the_constants() {
    let cmd = Standalone::command();
    let help = |id: &str| {
        cmd.get_arguments()
            .find(|a| a.get_id() == id)
            .and_then(|a| a.get_help())
            .map(|h| h.to_string())
            .unwrap_or_default()
    };
    let cases = [
        ("controller_service_user", SERVICE_USER.to_string()),
        ("controller_service_domain", SERVICE_DOMAIN.to_string()),
        ("controller_service_project", SERVICE_PROJECT.to_string()),
        ("controller_lease_seconds", LEASE_SECONDS.to_string()),
        ("controller_phase_seconds", PHASE_SECONDS.to_string()),
        (
            "controller_creation_timeout_minutes",
            CREATION_TIMEOUT_MINUTES.to_string(),
        ),
        (
            "controller_create_retry_seconds",
            CREATE_RETRY_SECONDS.to_string(),
        ),
        (
            "controller_create_retry_cap_seconds",
            CREATE_RETRY_CAP_SECONDS.to_string(),
        ),
        (
            "controller_event_retention_days",
            EVENT_RETENTION_DAYS.to_string(),
        ),
        (
            "controller_reconcile_concurrency",
            RECONCILE_CONCURRENCY.to_string(),
        ),
        ("controller_quota_instances", QUOTA_INSTANCES.to_string()),
        ("controller_quota_cores", QUOTA_CORES.to_string()),
        ("controller_quota_ram_mb", QUOTA_RAM_MB.to_string()),
        (
            "controller_openstack_timeout_seconds",
            OPENSTACK_TIMEOUT_SECONDS.to_string(),
        ),
        (
            "controller_openstack_attempts",
            OPENSTACK_ATTEMPTS.to_string(),
        ),
        (
            "controller_openstack_kluster_user_roles",
            OPENSTACK_KLUSTER_USER_ROLES.to_string(),
        ),
    ];
    for (id, value) in cases {
        let h = help(id);
        assert!(
            h.ends_with(&format!("Default: {value}")),
            "{id}: {h:?} vs {value}"
        );
    }
}
