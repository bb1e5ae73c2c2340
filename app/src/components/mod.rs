//! Reusable pieces of the UI.

pub mod header;
pub mod kluster_list;
