//! Text logs written to a file or a pipe are plain: no terminal colour codes, which an
//! operator's log file or collector would show as `[2m…[0m` noise around every field.

mod common;

use common::cluster;

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
