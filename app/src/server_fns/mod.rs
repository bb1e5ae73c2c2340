//! Server functions, one per file: thin adapters from the UI to Keystone and the session.

mod list_klusters;
mod list_projects;
mod login;
mod logout;
mod session_info;
mod switch_project;

pub use list_klusters::*;
pub use list_projects::*;
pub use login::*;
pub use logout::*;
pub use session_info::*;
pub use switch_project::*;
