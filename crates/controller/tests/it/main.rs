//! The integration tests of this crate, one module a feature, in one binary (one link of
//! the workspace instead of one a file). `cargo test -p controller --test it <module>::`
//! runs one module's tests.

mod access;
mod api;
mod api_catalog;
mod api_credentials;
mod api_list;
mod api_meta;
mod auth_keystone;
mod common;
mod concurrency;
mod conformance;
mod identity;
mod lifecycle;
mod openstack_faults;
mod openstack_identity;
mod openstack_real;
mod operator;
mod operator_ops;
mod parsers;
mod postgres;
mod reconcile;
mod reconcile_capacity;
mod reconcile_changes;
mod reconcile_deorbit;
mod reconcile_faults;
mod reconcile_projects;
mod reconcile_steady;
mod sealing_key;
mod simulator;
mod stream;
mod watch;
