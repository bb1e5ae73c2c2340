//! One module per route.

pub mod audit;
pub mod create;
pub mod detail;
pub mod home;
pub mod login;
pub mod not_found;
pub mod ops;
pub mod timeline;
pub mod yaml;
