//! Early deletes. A kluster deleted while its project's pass is still going (a pass
//! that saw it before the delete) would wait for that pass to end before its nodes go.
//! Instead the runner sends the deletes of the nodes the store knows at once
//! (`deorbit::early`), and keeps what they came to here ([`EarlyDeletes`]) for the project's
//! next pass, which reports them instead of sending them again (`deorbit::send_first`).
//! The pass still going leaves such a kluster alone ([`EarlyDeletes::has`]): its listing may show
//! those nodes going, and launch would replace them.

use std::collections::HashMap;
use std::sync::Mutex;

use crate::cloud::CloudError;

/// Server deletes sent (as a pass began, or aside), by kluster.
pub type Sent = HashMap<String, Answers>;

/// A kluster's server deletes: each server's id and the cloud's answer.
pub type Answers = Vec<(String, Result<(), CloudError>)>;

/// Deletes sent aside, by project and kluster, until a pass takes them.
#[derive(Debug, Default)]
pub struct EarlyDeletes {
    sent: Mutex<HashMap<String, Sent>>,
}

impl EarlyDeletes {
    /// Runs `f` on the map (a poisoned lock is taken as it is: entries are only answers).
    fn with<T>(&self, f: impl FnOnce(&mut HashMap<String, Sent>) -> T) -> T {
        let mut sent = self.sent.lock().unwrap_or_else(|e| e.into_inner());
        f(&mut sent)
    }

    /// Claims kluster `kluster` of `project` for deletes sent aside; `false` when it already
    /// is claimed.
    pub fn claim(&self, project: &str, kluster: &str) -> bool {
        self.with(|sent| {
            let klusters = sent.entry(project.to_string()).or_default();
            if klusters.contains_key(kluster) {
                return false;
            }
            klusters.insert(kluster.to_string(), Vec::new());
            true
        })
    }

    /// Whether deletes were sent aside for the kluster (and no pass took them yet).
    pub fn has(&self, project: &str, kluster: &str) -> bool {
        self.with(|sent| sent.get(project).is_some_and(|k| k.contains_key(kluster)))
    }

    /// Keeps the answers of a claimed kluster's deletes (dropped when a pass took the claim
    /// meanwhile: it sent them again).
    pub fn fill(&self, project: &str, kluster: &str, answers: Answers) {
        self.with(|sent| {
            if let Some(mine) = sent.get_mut(project).and_then(|k| k.get_mut(kluster)) {
                mine.extend(answers);
            }
        });
    }

    /// Takes what was sent aside for `klusters` of `project`.
    pub fn take<'a>(&self, project: &str, klusters: impl Iterator<Item = &'a str>) -> Sent {
        self.with(|sent| {
            let Some(of_project) = sent.get_mut(project) else {
                return Sent::new();
            };
            let taken = klusters
                .filter_map(|k| of_project.remove_entry(k))
                .collect();
            if of_project.is_empty() {
                sent.remove(project);
            }
            taken
        })
    }

    /// Forgets what was sent aside for kluster `kluster` of `project` (it was removed).
    pub fn forget(&self, project: &str, kluster: &str) {
        self.with(|sent| {
            if let Some(of_project) = sent.get_mut(project) {
                of_project.remove(kluster);
                if of_project.is_empty() {
                    sent.remove(project);
                }
            }
        });
    }

    /// Forgets everything (the reconcile lease was lost: the next leader sends again).
    pub fn clear(&self) {
        self.with(HashMap::clear);
    }
}
