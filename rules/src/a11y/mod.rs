//! Accessibility rules: WCAG 2.1 A/AA checks and accessibility best practices.
//! One file per rule, named for its id.

pub mod accesskeys;
pub mod audio_caption;
pub mod autocomplete_valid;
pub mod blink;
pub mod definition_list;
pub mod dlitem;
pub mod document_title;
pub mod duplicate_id_aria;
pub mod heading_order;
pub mod html_has_lang;
pub mod html_lang_valid;
pub mod html_xml_lang_mismatch;
pub mod list;
pub mod listitem;
pub mod marquee;
pub mod meta_refresh;
pub mod meta_viewport;
pub mod page_has_heading_one;
pub mod scope_attr_valid;
pub mod tabindex;
pub mod table_duplicate_name;
pub mod video_caption;
