//! Tests of the configuration: layering, defaults and the errors of bad values.

use std::time::Duration;

use super::*;

fn password() -> ControllerSettings {
    ControllerSettings {
        controller_service_password: Some("pw".into()),
        ..Default::default()
    }
}

#[test]
fn flags_beat_file_and_defaults_fill_the_rest() {
    let file: Settings = toml::from_str(
        "site_addr = \"127.0.0.1:4000\"\nkeystone_url = \"http://file/v3\"\nsession_store = \"memory\"",
    )
    .unwrap();
    let cli = Settings {
        keystone_url: Some("http://flag/v3".into()),
        controller: password(),
        ..Default::default()
    };
    let c = Config::resolve(cli.over(file)).unwrap();
    assert_eq!(c.keystone_url, "http://flag/v3");
    assert_eq!(c.site_addr.port(), 4000);
    assert_eq!(c.session_store, SessionStoreKind::Memory);
    assert_eq!(c.public_origin, "http://127.0.0.1:4000");
    assert!(!c.https);
    assert_eq!(c.controller_url, "embedded");
    let embedded = c.embedded.expect("the embedded controller by default");
    assert_eq!(embedded.service.user_name, "mission-control");
}

#[test]
fn the_embedded_controller_needs_a_service_password_a_remote_one_does_not() {
    let err = Config::resolve(Settings::default())
        .unwrap_err()
        .to_string();
    assert!(err.starts_with("controller_service_password:"), "{err}");
    let remote = Settings {
        controller_url: Some("https://kubernikus.example".into()),
        ..Default::default()
    };
    assert!(Config::resolve(remote).unwrap().embedded.is_none());
}

#[test]
fn the_shipped_leptos_toml_parses() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../Leptos.toml");
    let s = Settings::from_file(&path).unwrap();
    assert!(s.site_addr.is_some() && s.keystone_url.is_some());
    Config::resolve(s).unwrap();
}

#[test]
fn leptos_toml_lists_every_key_and_no_other() {
    use clap::CommandFactory;
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../Leptos.toml");
    let text = std::fs::read_to_string(path).unwrap();
    // A key's line, set or commented out: `key = value` or `# key = value`.
    let listed: Vec<&str> = text
        .lines()
        .filter_map(|l| l.trim_start_matches('#').trim_start().split_once(" = "))
        .map(|(k, _)| k)
        .filter(|k| k.chars().all(|c| c.is_ascii_lowercase() || c == '_'))
        .collect();
    for k in &listed {
        assert!(
            Settings::is_key(k),
            "Leptos.toml lists {k}, which is no key"
        );
    }
    for a in Settings::command().get_arguments() {
        let id = a.get_id().as_str();
        if !matches!(id, "config" | "help" | "version") {
            assert!(listed.contains(&id), "Leptos.toml does not list {id}");
        }
    }
}

#[test]
fn event_retention_is_a_week_unless_set_in_whole_days() {
    let base = || Settings {
        controller: password(),
        ..Default::default()
    };
    let retention = |s| {
        Config::resolve(s)
            .unwrap()
            .embedded
            .unwrap()
            .tuning
            .event_retention
    };
    let day = Duration::from_secs(24 * 3600);
    assert_eq!(retention(base()), 7 * day);
    let s = Settings {
        controller: ControllerSettings {
            controller_event_retention_days: Some(2),
            ..password()
        },
        ..base()
    };
    assert_eq!(retention(s), 2 * day);
    let s = Settings {
        controller: ControllerSettings {
            controller_event_retention_days: Some(0),
            ..password()
        },
        ..base()
    };
    let err = Config::resolve(s).unwrap_err().to_string();
    assert!(err.starts_with("controller_event_retention_days:"), "{err}");
}

#[test]
fn unknown_keys_and_bad_origins_are_rejected_with_the_key_named() {
    let dir = std::env::temp_dir().join(format!("mc-config-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("typo.toml");
    std::fs::write(&file, "keystone = \"x\"\ncontroller_lease_seconds = 3\n").unwrap();
    let err = Settings::from_file(&file).unwrap_err().to_string();
    assert!(err.contains("unknown key `keystone`"), "{err}");
    std::fs::write(
        &file,
        "controller_lease_seconds = 3\ncontroller_quota_cores = 4\n",
    )
    .unwrap();
    let s = Settings::from_file(&file).unwrap();
    assert_eq!(s.controller.controller_lease_seconds, Some(3.0));
    assert_eq!(s.controller.controller_quota_cores, Some(4));
    std::fs::write(&file, "controller_quota_cores = \"many\"\n").unwrap();
    let err = Settings::from_file(&file).unwrap_err().to_string();
    assert!(
        err.contains("controller_quota_cores") || err.contains("integer"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
    let base = || Settings {
        controller_url: Some("http://k".into()),
        ..Default::default()
    };
    let s = Settings {
        public_origin: Some("https://mc.example/app".into()),
        ..base()
    };
    let err = Config::resolve(s).unwrap_err().to_string();
    assert!(err.starts_with("public_origin:"), "{err}");
    let s = Settings {
        public_origin: Some("HTTPS://MC.example:443/".into()),
        ..base()
    };
    let c = Config::resolve(s).unwrap();
    assert_eq!(c.public_origin, "https://mc.example");
    assert!(c.https);
}

#[test]
fn logs_are_text_and_span_export_off_unless_configured() {
    let base = || Settings {
        controller_url: Some("http://k".into()),
        ..Default::default()
    };
    let c = Config::resolve(base()).unwrap();
    assert_eq!(c.log_format, serving::telemetry::LogFormat::Text);
    assert_eq!(c.otlp_endpoint, None, "no export by default");
    let c = Config::resolve(Settings {
        log_format: Some("json".into()),
        otlp_endpoint: Some("  ".into()),
        ..base()
    })
    .unwrap();
    assert_eq!(c.log_format, serving::telemetry::LogFormat::Json);
    assert_eq!(c.otlp_endpoint, None, "an empty endpoint exports nothing");
    let err = Config::resolve(Settings {
        log_format: Some("xml".into()),
        ..base()
    })
    .unwrap_err()
    .to_string();
    assert!(err.starts_with("log_format:"), "{err}");
    let err = Config::resolve(Settings {
        otlp_endpoint: Some("127.0.0.1:4318".into()),
        ..base()
    })
    .unwrap_err()
    .to_string();
    assert!(err.starts_with("otlp_endpoint:"), "{err}");
}
