//! The Kubernikus API model and its rules, without I/O or async, so that the controller
//! and the browser (WASM) validate with the same code and the same messages.
//!
//! - [`model`]: serde types for every swagger definition, JSON names exactly as the spec.
//! - [`validate`]: schema rules (patterns, lengths, ranges) with messages a person reads.
//! - [`update`]: what an update may change, and how it is merged into the stored kluster.
//! - [`defaults`]: the values Kubernikus fills in on create.
//! - [`diff`]: what an update changes, field by field.
//! - [`event`]: event types and reasons as enums with Kubernikus's spelling.
//! - [`metadata`]: extension: a kluster's identity (uid) beside spec and status.
//! - [`error`]: the error body, with its typed `reason` and `fields` extensions.
//! - [`listing`]: the list query extension (search, phase, sort, page), applied alike by the
//!   controller and the dashboard.
//! - [`summary`]: a kluster as a list row needs it (`fields=summary`), under the same names.

pub mod defaults;
pub mod diff;
pub mod error;
pub mod event;
pub mod listing;
pub mod metadata;
pub mod model;
pub mod net;
pub mod ops;
pub mod summary;
pub mod update;
pub mod validate;

pub use error::{ErrorBody, ErrorField, ErrorReason};
pub use event::{EventDetail, EventReason, EventType};
pub use metadata::KlusterMetadata;
pub use model::*;
pub use ops::{Attention, AuditRecord, OpsEvent, ProjectQuota, SpecChange};
pub use summary::KlusterSummary;
pub use validate::{FieldError, ValidationErrors};
