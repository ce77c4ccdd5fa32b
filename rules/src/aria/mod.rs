//! WAI-ARIA knowledge the accessibility rules stand on.
//!
//! - [`roles`]: the WAI-ARIA 1.2 role table (plus DPUB-ARIA and Graphics-ARIA roles,
//!   so valid pages are not flagged), with superclasses, states and properties,
//!   required context and owned elements, and where names come from.
//! - [`attrs`]: every `aria-*` state and property, its value type and allowed tokens.
//! - [`html`]: HTML-AAM implicit roles and ARIA in HTML's allowed roles per element.
//! - [`tree`]: accessibility tree facts for one document (hidden, focusable, role),
//!   computed once per page and cached in [`crate::PageContext`].
//! - [`name`]: accessible name and description per accname 1.2.
//!
//! The tables are compiled in (`match` statements and `static` slices): they change
//! with a spec revision, never at run time.

pub mod attrs;
pub mod html;
pub mod name;
pub mod roles;
pub mod tree;

pub use attrs::{attr_def, AttrDef, ValueType};
pub use roles::{role_def, NameFrom, RoleDef};
