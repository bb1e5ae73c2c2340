//! Tests of the configuration: layering, defaults and the errors of bad values.

use std::time::Duration;

use super::*;

#[test]
fn flags_beat_file_and_defaults_fill_the_rest() {
    let file: Settings = toml::from_str(
        "site_addr = \"127.0.0.1:4000\"\nkeystone_url = \"http://file/v3\"\nsession_store = \"memory\"",
    )
    .unwrap();
    let cli = Settings {
        keystone_url: Some("http://flag/v3".into()),
        controller_service_password: Some("pw".into()),
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
fn event_retention_is_a_week_unless_set_in_whole_days() {
    let base = || Settings {
        controller_service_password: Some("pw".into()),
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
        controller_event_retention_days: Some(2),
        ..base()
    };
    assert_eq!(retention(s), 2 * day);
    let s = Settings {
        controller_event_retention_days: Some(0),
        ..base()
    };
    let err = Config::resolve(s).unwrap_err().to_string();
    assert!(err.starts_with("controller_event_retention_days:"), "{err}");
}

#[test]
fn unknown_keys_and_bad_origins_are_rejected_with_the_key_named() {
    let err = toml::from_str::<Settings>("keystone = \"x\"").unwrap_err();
    assert!(err.to_string().contains("unknown field"), "{err}");
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
