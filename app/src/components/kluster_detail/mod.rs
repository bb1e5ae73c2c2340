//! The parts of a kluster's page, one per thing it shows: [`heading`] (name, phase,
//! download), [`spec`], [`pools`] (rows with [`scale`] and [`pool_edit`]: add/remove),
//! [`upgrade`], [`events`] (with next steps), [`setup`] (the kubectl command) and
//! [`delete`] (typed name). The page (`pages/detail.rs`) loads the data and lays them out.

pub mod delete;
pub mod events;
pub mod heading;
pub mod pool_edit;
pub mod pools;
pub mod scale;
pub mod setup;
pub mod spec;
pub mod upgrade;
