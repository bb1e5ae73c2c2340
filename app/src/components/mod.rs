//! Reusable pieces of the UI.

pub mod header;
