//! The live event stream (`GET /events/stream`) against the real server, the embedded
//! controller and the real Keystone: events arrive as they happen, one upstream feeds many
//! browsers, a restart of the server loses nothing (the browser resumes with
//! `Last-Event-ID`), and a session that ends sends the browser to the login page.

use std::time::Duration;

use crate::common::stream::{event, open, parser, read_until, reason, seqs, Frame};
use crate::common::{browser, call, create_kluster, keystone_url, login, user_token, TestServer};
use kluster::EventReason;
use reqwest::Client;
use server::config::Settings;
use testkit::eventually;

async fn start(data_dir: &std::path::Path, port: u16) -> TestServer {
    let s = Settings {
        site_addr: Some(format!("127.0.0.1:{port}").parse().unwrap()),
        public_origin: Some(crate::common::ORIGIN.into()),
        keystone_url: Some(keystone_url()),
        data_dir: Some(data_dir.to_path_buf()),
        token_recheck_secs: Some(0),
        controller: server::config::ControllerSettings {
            controller_service_password: Some("mission-control-secret".into()),
            controller_phase_seconds: Some(1.0),
            ..Default::default()
        },
        ..Default::default()
    };
    let config = server::Config::resolve(s).expect("test config");
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    let running = server::start(config, async {
        let _ = rx.await;
    })
    .await
    .expect("server starts");
    TestServer {
        base: format!("http://{}", running.addr),
        controller_url: running.controller_url,
        data_dir: data_dir.to_path_buf(),
        clock: app::ssr::Clock::real(),
        _stop: tx,
    }
}

/// The controller's own record of the project's changes after `after` (the truth).
async fn truth(srv: &TestServer, after: i64) -> Vec<i64> {
    let token = user_token("alice", "demo").await;
    let list: Vec<serde_json::Value> = Client::new()
        .get(format!(
            "{}/api/v1/events?after={after}",
            srv.controller_url
        ))
        .header("x-auth-token", token.expose())
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    list.iter().map(|e| e["seq"].as_i64().unwrap()).collect()
}

#[tokio::test]
async fn events_stream_live_and_a_restart_loses_none() {
    let dir = std::env::temp_dir().join(format!("mc-live-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let srv = start(&dir, port).await;
    let anon = browser();
    let r = anon
        .get(format!("{}/events/stream", srv.base))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 401, "no session, no stream");

    // Signed in, but without a Kubernetes role in the project: no events for them.
    let outsider = browser();
    let r = call(
        &outsider,
        &srv,
        "login",
        &[
            ("user_name", "admin"),
            ("password", "admin-secret"),
            ("user_domain", "Default"),
            ("project", "cloud_admin"),
        ],
    )
    .await;
    assert_eq!(r.status(), 200);
    let r = outsider
        .get(format!("{}/events/stream", srv.base))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 403);
    assert!(r.text().await.unwrap().contains("not allowed"));

    let c = browser();
    login(&c, &srv, "alice", "demo").await;
    let other = browser();
    login(&other, &srv, "bob", "demo").await;
    let (mut a, mut b) = (open(&c, &srv, None).await, open(&other, &srv, None).await);
    let (mut abuf, mut bbuf, mut af, mut bf) = (parser(), parser(), vec![], vec![]);
    let live = |f: &[Frame]| f.iter().any(|x| x.0 == "live");
    read_until(&mut a, &mut abuf, &mut af, live).await;
    read_until(&mut b, &mut bbuf, &mut bf, live).await;
    let start_seq: i64 = af
        .iter()
        .find(|x| x.0 == "live")
        .unwrap()
        .2
        .parse()
        .unwrap();

    create_kluster(&srv, "alice", r#"{"name":"live","spec":{"nodePools":[{"name":"p","size":2,"flavor":"m1.small","availabilityZone":"az-a"}]}}"#).await;
    let running = |f: &[Frame]| f.iter().any(|x| reason(x) == Some(EventReason::Running));
    read_until(&mut a, &mut abuf, &mut af, running).await;
    read_until(&mut b, &mut bbuf, &mut bf, running).await;
    let first: serde_json::Value =
        serde_json::from_str(&af.iter().find(|x| x.0 == "kluster-event").unwrap().2).unwrap();
    assert_eq!(first["kluster"], "live");
    assert_eq!(first["reason"], "Creating");
    let got = seqs(&af);
    assert_eq!(
        got,
        seqs(&bf)[..got.len().min(seqs(&bf).len())],
        "both browsers see the same"
    );
    assert_eq!(
        got,
        truth(&srv, start_seq).await[..got.len()],
        "every change, in order"
    );

    // Restart the server while both stream: the streams end, the browser reconnects with
    // the last id it saw, and gets everything that happened meanwhile.
    let last = got.last().unwrap().to_string();
    let old_controller = srv.controller_url.clone();
    drop(srv);
    let ended = tokio::time::timeout(Duration::from_secs(10), async {
        while let Ok(Some(_)) = a.chunk().await {}
    })
    .await;
    assert!(ended.is_ok(), "streams end on shutdown");
    // The old server has let go of its port and its controller no longer answers.
    eventually(
        Duration::from_secs(10),
        "the old server stopped",
        || async {
            std::net::TcpListener::bind(("127.0.0.1", port)).is_ok()
                && Client::new()
                    .get(format!("{old_controller}/healthz"))
                    .send()
                    .await
                    .is_err()
        },
    )
    .await;
    let srv = start(&dir, port).await;
    // The kluster keeps changing (its nodes come up) before the browser is back.
    eventually(
        Duration::from_secs(20),
        "something happened during the restart",
        || async { !truth(&srv, last.parse().unwrap()).await.is_empty() },
    )
    .await;
    let mut again = open(&c, &srv, Some(&last)).await;
    let (mut buf, mut frames) = (parser(), vec![]);
    let expected = truth(&srv, last.parse().unwrap()).await;
    assert!(
        !expected.is_empty(),
        "something happened during the restart"
    );
    let want = expected.clone();
    read_until(&mut again, &mut buf, &mut frames, move |f| {
        seqs(f).len() >= want.len()
    })
    .await;
    assert_eq!(
        seqs(&frames)[..expected.len()],
        expected[..],
        "no event lost or repeated"
    );

    // Signing out ends the stream with a pointer to the login page.
    let r = call(&c, &srv, "logout", &[]).await;
    assert!(r.status().is_success() || r.status().is_redirection());
    read_until(&mut again, &mut buf, &mut frames, |f| {
        f.iter().any(|x| x.0 == "session-ended")
    })
    .await;
    let ended = frames.iter().find(|x| x.0 == "session-ended").unwrap();
    assert_eq!(ended.2, "/login?error=session_expired");
    drop(srv);
    let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test]
async fn when_the_controller_goes_away_streams_say_paused_and_recover_by_themselves() {
    let dir = std::env::temp_dir().join(format!("mc-live-down-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    // A standalone controller the test can stop and start again (same store).
    let controller = |stop: tokio::sync::oneshot::Receiver<()>| {
        let config = controller::run::ControllerConfig {
            listen: format!("127.0.0.1:{port}").parse().unwrap(),
            keystone_url: keystone_url(),
            service: controller::auth::ServiceCredentials {
                user_name: "mission-control".into(),
                password: "mission-control-secret".into(),
                user_domain: "Default".into(),
                project: "service".into(),
                project_domain: "Default".into(),
            },
            database: controller::store::Database::Sqlite(dir.join("controller.db")),
            policy_file: None,
            token_cache: Duration::from_secs(60),
            settings: Default::default(),
            ca_key: controller::pki::SealKey([3; 32]),
            cloud: Default::default(),
            tuning: controller::run::Tuning::scaled(Duration::from_secs(1)),
        };
        async move {
            controller::run::start(config, async {
                let _ = stop.await;
            })
            .await
            .expect("controller starts")
        }
    };
    let (stop1, rx1) = tokio::sync::oneshot::channel();
    let first = controller(rx1).await;
    let srv = crate::common::spawn(|s| {
        s.controller_url = Some(format!("http://127.0.0.1:{port}"));
    })
    .await;
    let c = browser();
    login(&c, &srv, "alice", "demo").await;
    let mut r = open(&c, &srv, None).await;
    let (mut buf, mut frames) = (parser(), vec![]);
    read_until(&mut r, &mut buf, &mut frames, |f| {
        f.iter().any(|x| x.0 == "live")
    })
    .await;

    let _ = stop1.send(());
    first.task.await.unwrap().unwrap();
    read_until(&mut r, &mut buf, &mut frames, |f| {
        f.iter().any(|x| x.0 == "paused")
    })
    .await;

    let (_stop2, rx2) = tokio::sync::oneshot::channel();
    let _second = controller(rx2).await;
    let lives = |f: &[Frame]| f.iter().filter(|x| x.0 == "live").count();
    read_until(&mut r, &mut buf, &mut frames, move |f| lives(f) >= 2).await;
    // And events flow again.
    let token = user_token("alice", "demo").await;
    let created = Client::new()
        .post(format!("http://127.0.0.1:{port}/api/v1/clusters"))
        .header("x-auth-token", token.expose())
        .body(r#"{"name":"back","spec":{}}"#)
        .send()
        .await
        .unwrap();
    assert_eq!(created.status(), 201);
    read_until(&mut r, &mut buf, &mut frames, |f| {
        f.iter()
            .any(|x| event(x).is_some_and(|e| e.kluster == "back"))
    })
    .await;
    drop(srv);
    let _ = std::fs::remove_dir_all(dir);
}
