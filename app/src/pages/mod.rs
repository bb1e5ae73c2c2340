//! One module per route.

pub mod home;
pub mod login;
pub mod not_found;
