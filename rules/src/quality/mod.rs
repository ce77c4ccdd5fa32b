//! Content-quality rules: placeholders, empty controls, readability, long text,
//! stale notices, contact links. One file per rule, named for its id.

pub mod analysis_incomplete;
pub mod contact_links;
pub mod empty_button;
pub mod empty_link;
pub mod long_paragraphs;
pub mod long_sentences;
pub mod outdated_copyright;
pub mod placeholder_text;
pub mod readability;
pub mod spelling;
