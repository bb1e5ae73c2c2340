//! The simulation lives in the controller's database ([`SimCloud::in_store`]); older
//! versions saved it to a side file next to the SQLite database, which is imported once
//! into an empty database and then renamed `*.imported`.

use super::state::SavedFile;
use super::SimCloud;

impl SimCloud {
    /// Imports the side file at `path`, if there is one and the database holds no
    /// simulated state yet; renames it `<path>.imported` afterwards.
    pub async fn import_file(&self, path: &std::path::Path) -> Result<(), String> {
        let bytes = match std::fs::read(path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(format!("{}: {e}", path.display())),
        };
        let super::Backend::Store(store) = self.backend.as_ref() else {
            return Ok(());
        };
        if !store.sim_is_empty().await.map_err(|e| e.to_string())? {
            return Ok(());
        }
        let saved: SavedFile =
            serde_json::from_slice(&bytes).map_err(|e| format!("{}: {e}", path.display()))?;
        let n = saved.projects.len();
        for (project, state) in saved.projects {
            let json = serde_json::to_string(&state).map_err(|e| e.to_string())?;
            store
                .sim_update(&project, |_| (Some(json), ()))
                .await
                .map_err(|e| e.to_string())?;
        }
        let done = path.with_extension("json.imported");
        std::fs::rename(path, &done).map_err(|e| format!("{}: {e}", path.display()))?;
        tracing::info!(file = %path.display(), projects = n, "imported the simulated cloud's side file into the database");
        Ok(())
    }
}
