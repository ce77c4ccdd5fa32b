//! The domain operations: every change the service makes on behalf of a
//! person or client, with its validation, quota and plan rules, in one place.
//! The API handlers, the dashboard's pages and `sitescan admin` are thin
//! adapters: they read their input (JSON, a form, flags), call a function
//! here, and turn its value or its [`crate::Error`] into their own answer
//! (a JSON envelope, a page with field errors, an exit code). No adapter
//! implements a rule of its own, and none calls another adapter.
//!
//! An operation takes what it needs, never more: the store (and the queue
//! and settings, through [`crate::state::AppState`], when a scan starts).
//! Validation problems are [`crate::Error::Invalid`] naming every field at
//! once; a record of another account is [`crate::Error::NotFound`], as a
//! missing one.

pub mod credentials;
pub mod keys;
pub mod marks;
pub mod regressions;
pub mod scans;
pub mod schedules;
pub mod screenshots;
pub mod sites;
pub mod users;
pub mod webhooks;
