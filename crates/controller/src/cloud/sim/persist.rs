//! Saving the simulation to a file after every change and resuming from it, so that the
//! simulated cloud outlives the controller process as a real one does.

use std::sync::{Arc, Mutex};

use super::state::State;
use super::{Clock, SimCloud, SimConfig};

impl SimCloud {
    /// A simulated region saved to `path` after every change and resumed from it: like a
    /// real cloud, it outlives the controller process.
    pub fn persistent(
        config: SimConfig,
        clock: Clock,
        path: &std::path::Path,
    ) -> Result<SimCloud, String> {
        let mut sim = SimCloud::new(config, clock);
        match std::fs::read(path) {
            Ok(bytes) => {
                let st: State = serde_json::from_slice(&bytes)
                    .map_err(|e| format!("{}: {e}", path.display()))?;
                sim.ids
                    .store(st.next_id, std::sync::atomic::Ordering::Relaxed);
                sim.state = Arc::new(Mutex::new(st));
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(format!("{}: {e}", path.display())),
        }
        sim.file = Some(Arc::new(path.to_path_buf()));
        Ok(sim)
    }

    /// Saves the state if a project changed (and there is a file); a failure is logged.
    pub(super) fn finish(&self, st: &mut State) {
        let mut dirty = false;
        for p in st.projects.values_mut() {
            dirty |= std::mem::take(&mut p.dirty);
        }
        if dirty {
            self.save(st);
        }
    }

    /// Writes the state to the file, if there is one (a failure is logged, not fatal).
    fn save(&self, st: &mut State) {
        let Some(path) = &self.file else { return };
        st.next_id = self.ids.load(std::sync::atomic::Ordering::Relaxed);
        let tmp = path.with_extension("tmp");
        let written = serde_json::to_vec(st)
            .map_err(|e| e.to_string())
            .and_then(|b| std::fs::write(&tmp, b).map_err(|e| e.to_string()))
            .and_then(|()| std::fs::rename(&tmp, path.as_path()).map_err(|e| e.to_string()));
        if let Err(e) = written {
            tracing::warn!(path = %path.display(), error = e, "could not save the simulated cloud");
        }
    }
}
