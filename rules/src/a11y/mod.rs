//! Accessibility rules: WCAG 2.1 A/AA checks and accessibility best practices.
//! One file per rule, named for its id.

pub mod area_alt;
pub mod aria_allowed_attr;
pub mod aria_allowed_role;
pub mod aria_deprecated_role;
pub mod aria_hidden_body;
pub mod aria_hidden_focus;
pub mod aria_prohibited_attr;
pub mod aria_required_attr;
pub mod aria_roles;
pub mod aria_valid_attr;
pub mod aria_valid_attr_value;
pub mod button_name;
pub mod document_title;
pub mod frame_title;
pub mod image_alt;
pub mod input_button_name;
pub mod input_image_alt;
pub mod label;
pub mod link_name;
pub mod object_alt;
pub mod presentation_role_conflict;
pub mod role_img_alt;
pub mod select_name;
mod support;
pub mod svg_img_alt;
