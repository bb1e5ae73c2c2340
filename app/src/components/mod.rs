//! Reusable pieces of the UI.

pub mod create_form;
pub mod header;
pub mod kluster_list;
pub mod live;
pub mod signed_in;
