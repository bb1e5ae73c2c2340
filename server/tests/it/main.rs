//! The integration tests of this crate, one module a feature, in one binary (one link of
//! the workspace instead of one a file). `cargo test -p server --test it <module>::`
//! runs one module's tests.

mod app_credentials;
mod auth_flow;
mod auth_session;
mod common;
mod contract;
mod dashboard_flow;
mod duplicate;
mod failover;
mod grants;
mod hardening;
mod keystone_calls;
mod kluster_forms;
mod list_page;
mod live;
mod live_access;
mod live_polling;
mod operator;
mod operator_access;
mod page_renders;
mod plain_logs;
mod pool_image_disk;
mod replicas;
mod request_trace;
mod theme;
