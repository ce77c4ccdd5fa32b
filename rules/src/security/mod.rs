//! Security rules: transport, response headers, cookies, content security, known
//! vulnerable libraries — and the Observatory-scale grade ([`grade`]).
//! One file per rule, named for its id.

pub mod grade;

pub mod clickjacking_protection;
pub mod content_security_policy;
pub mod cookie_security;
pub mod cors_policy;
pub mod cross_origin_isolation;
pub mod insecure_form_action;
pub mod is_on_https;
pub mod mixed_content_active;
pub mod mixed_content_passive;
pub mod permissions_policy;
pub mod referrer_policy;
pub mod strict_transport_security;
pub mod subresource_integrity;
pub mod target_blank_noopener;
pub mod version_disclosure;
pub mod vulnerable_js_library;
pub mod x_content_type_options;
