//! Accessibility rules: WCAG 2.1 A/AA checks and accessibility best practices.
//! One file per rule, named for its id.

pub mod document_title;
