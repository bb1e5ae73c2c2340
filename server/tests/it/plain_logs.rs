//! Text logs written to a file or a pipe are plain: no terminal colour codes, which an
//! operator's log file or collector would show as `[2m…[0m` noise around every field, and
//! each field of a request once.

use crate::common::cluster;

#[tokio::test]
async fn a_replica_logging_to_a_file_writes_no_colour_codes() {
    let dir = cluster::scratch("plain-logs");
    let db = dir.join("controller.db").display().to_string();
    let ctl = cluster::controller("controller", &dir, &db, &dir.join("ca.key"), 2.0);
    cluster::wait_ok(&format!("http://{}/readyz", ctl.addr), 30, Some(&ctl)).await;
    let log = std::fs::read_to_string(&ctl.log).unwrap();
    assert!(log.contains("controller listening"), "{log}");
    assert!(
        !log.contains('\u{1b}'),
        "colour codes in a log file:\n{log}"
    );
}

#[tokio::test]
async fn a_signed_in_page_names_its_caller_once_in_the_text_log() {
    let _ = crate::common::keystone_url();
    let dir = cluster::scratch("plain-logs-caller");
    let db = dir.join("controller.db").display().to_string();
    let ctl = cluster::controller("controller", &dir, &db, &dir.join("ca.key"), 2.0);
    let ctl_url = format!("http://{}", ctl.addr);
    cluster::wait_ok(&format!("{ctl_url}/readyz"), 30, Some(&ctl)).await;
    let dash = cluster::dashboard(
        "dashboard",
        &dir,
        "memory",
        &dir.join("session.key"),
        &ctl_url,
        crate::common::ORIGIN,
    );
    let base = format!("http://{}", dash.addr);
    cluster::wait_ok(&format!("{base}/readyz"), 30, Some(&dash)).await;
    let c = crate::common::clients::signed_in(&base).await;
    // The page checks the session for each of its resources (list, projects, header).
    let r = c.get(format!("{base}/")).send().await.unwrap();
    assert_eq!(r.status(), 200);
    let line = testkit::eventually(
        std::time::Duration::from_secs(10),
        "an access line",
        || async {
            let log = std::fs::read_to_string(&dash.log).unwrap_or_default();
            log.lines()
                .find(|l| l.contains("access:") && l.contains(r#"path="/" status=200"#))
                .map(str::to_string)
                .ok_or(log)
        },
    )
    .await;
    assert_eq!(line.matches(r#"user="alice@demo""#).count(), 1, "{line}");
    assert_eq!(line.matches("project=").count(), 1, "{line}");
    // Both were polled on /readyz until ready: probes are logged at debug, not info.
    for (who, log) in [("dashboard", &dash.log), ("controller", &ctl.log)] {
        let log = std::fs::read_to_string(log).unwrap_or_default();
        assert!(
            log.contains("access:"),
            "{who}: no access line at all:\n{log}"
        );
        assert!(
            !log.contains(r#"path="/readyz""#),
            "{who}: a health probe logged at info:\n{log}"
        );
    }
}
