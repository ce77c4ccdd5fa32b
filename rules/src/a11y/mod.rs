//! Accessibility rules: WCAG 2.1 A/AA checks and accessibility best practices.
//! One file per rule, named for its id.

pub mod document_title;
pub mod html_has_lang;
pub mod html_lang_valid;
pub mod html_xml_lang_mismatch;
pub mod meta_refresh;
pub mod meta_viewport;
