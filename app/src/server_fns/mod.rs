//! Server functions, one per file: thin adapters from the UI to Keystone and the session.

mod audit_records;
mod create_context;
mod create_kluster;
mod delete_kluster;
mod edit_kluster;
mod kluster_detail;
mod kluster_yaml;
mod list_klusters;
mod list_projects;
mod login;
mod login_app_credential;
mod logout;
mod ops;
mod recent_events;
mod scale_pool;
mod session_info;
mod switch_project;
mod termination_protection;

pub use audit_records::*;
pub use create_context::*;
pub use create_kluster::*;
pub use delete_kluster::*;
pub use edit_kluster::*;
pub use kluster_detail::*;
pub use kluster_yaml::*;
pub use list_klusters::*;
pub use list_projects::*;
pub use login::*;
pub use login_app_credential::*;
pub use logout::*;
pub use ops::*;
pub use recent_events::*;
pub use scale_pool::*;
pub use session_info::*;
pub use switch_project::*;
pub use termination_protection::*;
