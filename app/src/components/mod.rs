//! Reusable pieces of the UI: the signed-in frame and header, the kluster list (`kluster_list`, its rows and
//! controls), the live
//! feed, the create form (`create_form/`), the parts of a kluster's page
//! (`kluster_detail/`), the copy button, the one error alert and form-failure path, and the
//! style constants.

pub mod copy_button;
pub mod create_form;
pub mod create_yaml;
pub mod error_alert;
pub mod form_failure;
pub mod header;
pub mod kluster_detail;
pub mod kluster_list;
pub mod kluster_rows;
pub mod list_controls;
pub mod live;
pub mod post_form;
pub mod region_picker;
pub mod scroll_region;
pub mod signed_in;
pub mod style;
pub mod theme;
