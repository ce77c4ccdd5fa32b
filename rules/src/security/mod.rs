//! Security rules: transport, response headers, cookies, content security, known
//! vulnerable libraries — and the Observatory-scale grade ([`grade`]).
//! One file per rule, named for its id.

// Each rule of the category, in report order: its module (the file named for
// its id) and its type. Adding a rule is its file plus one line here.
crate::rule_modules! { page:
    is_on_https::IsOnHttps,
    strict_transport_security::StrictTransportSecurity,
    content_security_policy::ContentSecurityPolicy,
    x_content_type_options::XContentTypeOptions,
    clickjacking_protection::ClickjackingProtection,
    referrer_policy::ReferrerPolicy,
    cross_origin_isolation::CrossOriginIsolation,
    permissions_policy::PermissionsPolicy,
    cookie_security::CookieSecurity,
    cors_policy::CorsPolicy,
    mixed_content_active::MixedContentActive,
    mixed_content_passive::MixedContentPassive,
    subresource_integrity::SubresourceIntegrity,
    insecure_form_action::InsecureFormAction,
    target_blank_noopener::TargetBlankNoopener,
    version_disclosure::VersionDisclosure,
    vulnerable_js_library::VulnerableJsLibrary,
}

pub mod grade;
