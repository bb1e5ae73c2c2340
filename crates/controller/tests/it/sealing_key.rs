//! The sealing key file when several replicas start at once on a shared directory: one
//! creates it, the others read that same key (none fails with "File exists"), and no
//! half-written or temporary file is left.

use std::sync::{Arc, Barrier};

#[test]
fn replicas_starting_together_share_one_new_key() {
    let dir = std::env::temp_dir().join(format!("mc-key-race-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for round in 0..20 {
        let path = dir.join(format!("session-{round}.key"));
        let start = Arc::new(Barrier::new(8));
        let keys: Vec<_> = (0..8)
            .map(|_| {
                let (path, start) = (path.clone(), start.clone());
                std::thread::spawn(move || {
                    start.wait();
                    controller::run::load_or_create_key(&path)
                        .map(|k| k.0)
                        .map_err(|e| e.to_string())
                })
            })
            .collect::<Vec<_>>()
            .into_iter()
            .map(|t| t.join().unwrap())
            .collect();
        let first = keys[0]
            .clone()
            .unwrap_or_else(|e| panic!("round {round}: {e}"));
        for k in &keys {
            assert_eq!(
                k.as_ref(),
                Ok(&first),
                "round {round}: every replica, one key"
            );
        }
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
    }
    let left: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| !n.ends_with(".key"))
        .collect();
    assert!(left.is_empty(), "temporary files left: {left:?}");
    let _ = std::fs::remove_dir_all(&dir);
}
