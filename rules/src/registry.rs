//! The one list of rules, and the rule sets users select them by.
//!
//! A new rule is added in its own file and listed here once; the registry test
//! checks ids are unique, docs carry both examples and WCAG criteria are real.

use serde::Serialize;
use thiserror::Error;

use crate::a11y;
use crate::meta::{Category, Level, RuleMeta};
use crate::performance;
use crate::quality;
use crate::run::Rule;
use crate::security;
use crate::seo;
use crate::site::{self, SiteRule};

/// Every page rule, in report order.
static PAGE_RULES: &[&dyn Rule] = &[
    &a11y::document_title::DocumentTitle,
    &a11y::html_has_lang::HtmlHasLang,
    &a11y::html_lang_valid::HtmlLangValid,
    &a11y::html_xml_lang_mismatch::HtmlXmlLangMismatch,
    &a11y::meta_viewport::MetaViewport,
    &a11y::meta_refresh::MetaRefresh,
    &a11y::blink::Blink,
    &a11y::marquee::Marquee,
    &a11y::list::List,
    &a11y::listitem::Listitem,
    &a11y::definition_list::DefinitionList,
    &a11y::dlitem::Dlitem,
    &a11y::scope_attr_valid::ScopeAttrValid,
    &a11y::table_duplicate_name::TableDuplicateName,
    &a11y::duplicate_id_aria::DuplicateIdAria,
    &a11y::tabindex::Tabindex,
    &a11y::accesskeys::Accesskeys,
    &a11y::heading_order::HeadingOrder,
    &a11y::page_has_heading_one::PageHasHeadingOne,
    &a11y::autocomplete_valid::AutocompleteValid,
    &a11y::video_caption::VideoCaption,
    &a11y::audio_caption::AudioCaption,
    // Accessibility: names, ARIA, CSS (issue 3 part A).
    &a11y::image_alt::ImageAlt,
    &a11y::role_img_alt::RoleImgAlt,
    &a11y::svg_img_alt::SvgImgAlt,
    &a11y::input_image_alt::InputImageAlt,
    &a11y::area_alt::AreaAlt,
    &a11y::object_alt::ObjectAlt,
    &a11y::button_name::ButtonName,
    &a11y::input_button_name::InputButtonName,
    &a11y::link_name::LinkName,
    &a11y::label::Label,
    &a11y::select_name::SelectName,
    &a11y::frame_title::FrameTitle,
    &a11y::aria_valid_attr::AriaValidAttr,
    &a11y::aria_valid_attr_value::AriaValidAttrValue,
    &a11y::aria_allowed_attr::AriaAllowedAttr,
    &a11y::aria_prohibited_attr::AriaProhibitedAttr,
    &a11y::aria_required_attr::AriaRequiredAttr,
    &a11y::aria_roles::AriaRoles,
    &a11y::aria_allowed_role::AriaAllowedRole,
    &a11y::aria_deprecated_role::AriaDeprecatedRole,
    &a11y::aria_hidden_body::AriaHiddenBody,
    &a11y::aria_hidden_focus::AriaHiddenFocus,
    &a11y::presentation_role_conflict::PresentationRoleConflict,
    &a11y::aria_command_name::AriaCommandName,
    &a11y::aria_input_field_name::AriaInputFieldName,
    &a11y::aria_toggle_field_name::AriaToggleFieldName,
    &a11y::aria_meter_name::AriaMeterName,
    &a11y::aria_progressbar_name::AriaProgressbarName,
    &a11y::aria_tooltip_name::AriaTooltipName,
    &a11y::aria_dialog_name::AriaDialogName,
    &a11y::aria_treeitem_name::AriaTreeitemName,
    &a11y::aria_required_children::AriaRequiredChildren,
    &a11y::aria_required_parent::AriaRequiredParent,
    &a11y::nested_interactive::NestedInteractive,
    &a11y::form_field_multiple_labels::FormFieldMultipleLabels,
    &a11y::label_content_name_mismatch::LabelContentNameMismatch,
    &a11y::image_redundant_alt::ImageRedundantAlt,
    &a11y::color_contrast::ColorContrast,
    &a11y::link_in_text_block::LinkInTextBlock,
    &a11y::target_size::TargetSize,
    &a11y::summary_name::SummaryName,
    &a11y::css_orientation_lock::CssOrientationLock,
    &a11y::focus_visible::FocusVisible,
    // Security (issue 4).
    &security::is_on_https::IsOnHttps,
    &security::strict_transport_security::StrictTransportSecurity,
    &security::content_security_policy::ContentSecurityPolicy,
    &security::x_content_type_options::XContentTypeOptions,
    &security::clickjacking_protection::ClickjackingProtection,
    &security::referrer_policy::ReferrerPolicy,
    &security::cross_origin_isolation::CrossOriginIsolation,
    &security::permissions_policy::PermissionsPolicy,
    &security::cookie_security::CookieSecurity,
    &security::cors_policy::CorsPolicy,
    &security::mixed_content_active::MixedContentActive,
    &security::mixed_content_passive::MixedContentPassive,
    &security::subresource_integrity::SubresourceIntegrity,
    &security::insecure_form_action::InsecureFormAction,
    &security::target_blank_noopener::TargetBlankNoopener,
    &security::version_disclosure::VersionDisclosure,
    &security::vulnerable_js_library::VulnerableJsLibrary,
    // SEO (issue 4).
    &seo::http_status_code::HttpStatusCode,
    &seo::redirect_chain::RedirectChain,
    &seo::is_crawlable::IsCrawlable,
    &seo::robots_directives::RobotsDirectives,
    &seo::seo_title::SeoTitle,
    &seo::meta_description::MetaDescription,
    &seo::heading_h1::HeadingH1,
    &seo::canonical::Canonical,
    &seo::hreflang::Hreflang,
    &seo::viewport::Viewport,
    &seo::structured_data::StructuredData,
    &seo::social_meta::SocialMeta,
    &seo::url_hygiene::UrlHygiene,
    &seo::crawlable_anchors::CrawlableAnchors,
    &seo::link_text::LinkText,
    &seo::internal_nofollow::InternalNofollow,
    &seo::too_many_links::TooManyLinks,
    &seo::localhost_links::LocalhostLinks,
    &seo::dead_end::DeadEnd,
    &seo::thin_content::ThinContent,
    &seo::page_depth::PageDepth,
    &a11y::valid_lang::ValidLang,
    &a11y::avoid_inline_spacing::AvoidInlineSpacing,
    &a11y::td_headers_attr::TdHeadersAttr,
    &a11y::th_has_data_cells::ThHasDataCells,
    &a11y::bypass::Bypass,
    &a11y::bypass_landmark::BypassLandmark,
    &a11y::bypass_heading::BypassHeading,
    &a11y::skip_link::SkipLink,
    &a11y::landmark_no_duplicate_banner::LandmarkNoDuplicateBanner,
    &a11y::landmark_no_duplicate_contentinfo::LandmarkNoDuplicateContentinfo,
    &a11y::landmark_no_duplicate_main::LandmarkNoDuplicateMain,
    &a11y::landmark_one_main::LandmarkOneMain,
    &a11y::landmark_unique::LandmarkUnique,
    &a11y::region::Region,
    &a11y::empty_heading::EmptyHeading,
    &a11y::frame_title_unique::FrameTitleUnique,
    &a11y::frame_focusable_content::FrameFocusableContent,
    &a11y::html_lang_matches_content::HtmlLangMatchesContent,
    &a11y::lang_matches_content::LangMatchesContent,
    // Accessibility: more ACT rules (issue 3 follow-up).
    &a11y::image_decorative::ImageDecorative,
    &a11y::scrollable_region_focusable::ScrollableRegionFocusable,
    &a11y::zoomed_text_clipped::ZoomedTextClipped,
    &a11y::label_descriptive::LabelDescriptive,
    // Performance (issue 4).
    &performance::server_response_time::ServerResponseTime,
    &performance::download_time::DownloadTime,
    &performance::html_size::HtmlSize,
    &performance::text_compression::TextCompression,
    &performance::dom_size::DomSize,
    &performance::render_blocking_resources::RenderBlockingResources,
    &performance::unsized_images::UnsizedImages,
    &performance::modern_image_formats::ModernImageFormats,
    &performance::modern_http::ModernHttp,
    &performance::start_page_redirects::StartPageRedirects,
    &performance::third_party_origins::ThirdPartyOrigins,
    &performance::font_display::FontDisplay,
    &performance::unminified_code::UnminifiedCode,
    // Subresources fetched once per scan (issue 4 part B).
    &performance::total_byte_weight::TotalByteWeight,
    &performance::long_cache_ttl::LongCacheTtl,
    &performance::oversized_images::OversizedImages,
    // Content quality (issue 4).
    &quality::placeholder_text::PlaceholderText,
    &quality::empty_link::EmptyLink,
    &quality::empty_button::EmptyButton,
    &quality::contact_links::ContactLinks,
    &quality::readability::Readability,
    &quality::long_sentences::LongSentences,
    &quality::long_paragraphs::LongParagraphs,
    &quality::outdated_copyright::OutdatedCopyright,
    &quality::spelling::Spelling,
    // Reported by the runner on pages over their budget, never selected (issue 16).
    &quality::analysis_incomplete::AnalysisIncomplete,
];

/// Every site rule, in report order.
static SITE_RULES: &[&dyn SiteRule] = &[
    // Site-wide SEO (issue 4).
    &site::duplicate_title::DuplicateTitle,
    &site::duplicate_meta_description::DuplicateMetaDescription,
    &site::duplicate_h1::DuplicateH1,
    &site::duplicate_content::DuplicateContent,
    &site::near_duplicate_content::NearDuplicateContent,
    &site::orphan_page::OrphanPage,
    &site::hreflang_return_links::HreflangReturnLinks,
    &site::canonical_target::CanonicalTarget,
    &site::sitemap_non_indexable::SitemapNonIndexable,
    &site::http_on_https_site::HttpOnHttpsSite,
    &site::unreachable_page::UnreachablePage,
    // Site facts gathered once per scan (issue 4 part A).
    &site::robots_txt::RobotsTxt,
    &site::sitemap_valid::SitemapValid,
    &site::tls_certificate::TlsCertificate,
    &site::tls_version::TlsVersion,
    &site::cors_reflected_origin::CorsReflectedOrigin,
    &site::redirects_http::RedirectsHttp,
    // Network-checked quality (issue 4; statuses filled in by the engine).
    &site::broken_links::BrokenLinks,
    &site::broken_resources::BrokenResources,
];

/// Names of the rule sets, with what each holds.
pub const RULE_SETS: &[(&str, &str)] = &[
    ("wcag-a", "accessibility rules for WCAG 2.1 level A"),
    (
        "wcag-aa",
        "accessibility rules for WCAG 2.1 levels A and AA",
    ),
    (
        "best-practice",
        "accessibility best practices beyond WCAG conformance",
    ),
    (
        "review",
        "accessibility checks only a person can decide: every applicable element is a review item",
    ),
    (
        "accessibility",
        "every accessibility rule (wcag-aa, best-practice and review)",
    ),
    ("seo", "search engine optimisation rules"),
    ("security", "security rules"),
    ("performance", "performance rules"),
    ("quality", "content quality rules"),
    ("all", "every rule"),
];

/// Every page rule.
pub fn page_rules() -> &'static [&'static dyn Rule] {
    PAGE_RULES
}

/// Every site rule.
pub fn site_rules() -> &'static [&'static dyn SiteRule] {
    SITE_RULES
}

/// Metadata of every rule, page rules first.
pub fn all_meta() -> impl Iterator<Item = &'static RuleMeta> {
    PAGE_RULES
        .iter()
        .map(|r| r.meta())
        .chain(SITE_RULES.iter().map(|r| r.meta()))
}

/// Looks up a rule's metadata by id.
pub fn meta(id: &str) -> Option<&'static RuleMeta> {
    all_meta().find(|m| m.id == id)
}

/// A resolved selection of rules.
#[derive(Clone, Default)]
pub struct Selection {
    /// Page rules to run on every page.
    pub page: Vec<&'static dyn Rule>,
    /// Site rules to run after the crawl.
    pub site: Vec<&'static dyn SiteRule>,
}

impl Selection {
    /// Ids of every selected rule.
    pub fn ids(&self) -> Vec<&'static str> {
        self.page
            .iter()
            .map(|r| r.meta().id)
            .chain(self.site.iter().map(|r| r.meta().id))
            .collect()
    }

    /// True when nothing is selected.
    pub fn is_empty(&self) -> bool {
        self.page.is_empty() && self.site.is_empty()
    }
}

impl std::fmt::Debug for Selection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.ids()).finish()
    }
}

/// A rule set or rule id that does not exist.
#[derive(Debug, Clone, Error, PartialEq, Eq, Serialize)]
#[error("unknown rule set or rule id `{name}`: use one of {known_sets} or a rule id listed by `sitescan rules`")]
pub struct UnknownRule {
    /// What the caller asked for.
    pub name: String,
    /// The rule sets that exist, comma-joined.
    pub known_sets: String,
}

/// Whether a rule belongs to a named rule set.
pub fn in_set(meta: &RuleMeta, set: &str) -> Option<bool> {
    let a11y = meta.category == Category::Accessibility;
    Some(match set {
        "wcag-a" => {
            a11y && !meta.best_practice && !meta.manual_review && meta.level == Some(Level::A)
        }
        "wcag-aa" => a11y && !meta.best_practice && !meta.manual_review && meta.level.is_some(),
        "review" => a11y && meta.manual_review,
        "best-practice" => a11y && meta.best_practice,
        "accessibility" => a11y,
        "seo" => meta.category == Category::Seo,
        "security" => meta.category == Category::Security,
        "performance" => meta.category == Category::Performance,
        "quality" => meta.category == Category::Quality,
        "all" => true,
        _ => return None,
    })
}

/// Resolves rule set names and rule ids (each entry may itself be comma-joined)
/// into a selection, in registry order and without duplicates.
pub fn select<S: AsRef<str>>(names: &[S]) -> Result<Selection, UnknownRule> {
    let mut wanted: Vec<&str> = Vec::new();
    for name in names {
        for part in name.as_ref().split(',') {
            let part = part.trim();
            if !part.is_empty() {
                wanted.push(part);
            }
        }
    }
    for name in &wanted {
        let known = RULE_SETS.iter().any(|(s, _)| s == name) || meta(name).is_some();
        if !known {
            return Err(UnknownRule {
                name: (*name).to_string(),
                known_sets: RULE_SETS
                    .iter()
                    .map(|(s, _)| *s)
                    .collect::<Vec<_>>()
                    .join(", "),
            });
        }
    }
    // `analysis-incomplete` is never selected: the runner reports it on any page
    // over its budget whatever the selection (see its rule file).
    let runner_reported = crate::quality::analysis_incomplete::AnalysisIncomplete.meta();
    let chosen = |m: &RuleMeta| {
        !std::ptr::eq(m, runner_reported)
            && wanted
                .iter()
                .any(|w| *w == m.id || in_set(m, w).unwrap_or(false))
    };
    Ok(Selection {
        page: PAGE_RULES
            .iter()
            .copied()
            .filter(|r| chosen(r.meta()))
            .collect(),
        site: SITE_RULES
            .iter()
            .copied()
            .filter(|r| chosen(r.meta()))
            .collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    /// WCAG 2.1 success criteria at levels A and AA.
    const WCAG21_A_AA: &[&str] = &[
        "1.1.1", "1.2.1", "1.2.2", "1.2.3", "1.2.4", "1.2.5", "1.3.1", "1.3.2", "1.3.3", "1.3.4",
        "1.3.5", "1.4.1", "1.4.2", "1.4.3", "1.4.4", "1.4.5", "1.4.10", "1.4.11", "1.4.12",
        "1.4.13", "2.1.1", "2.1.2", "2.1.4", "2.2.1", "2.2.2", "2.3.1", "2.4.1", "2.4.2", "2.4.3",
        "2.4.4", "2.4.5", "2.4.6", "2.4.7", "2.5.1", "2.5.2", "2.5.3", "2.5.4", "3.1.1", "3.1.2",
        "3.2.1", "3.2.2", "3.2.3", "3.2.4", "3.3.1", "3.3.2", "3.3.3", "3.3.4", "4.1.1", "4.1.2",
        "4.1.3",
    ];

    #[test]
    fn ids_are_unique_kebab_case_and_documented() {
        let mut seen = HashSet::new();
        for m in all_meta() {
            assert!(seen.insert(m.id), "duplicate rule id {}", m.id);
            assert!(
                m.id.chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'),
                "{} is not kebab-case",
                m.id
            );
            assert!(
                !m.title.is_empty() && !m.help.is_empty(),
                "{} lacks title/help",
                m.id
            );
            assert!(
                m.help_url.starts_with("https://"),
                "{} lacks a help URL",
                m.id
            );
            assert!(
                m.docs.contains("## Failing") && m.docs.contains("## Passing"),
                "{} docs need both examples",
                m.id
            );
            for sc in m.wcag {
                assert!(
                    WCAG21_A_AA.contains(sc),
                    "{} cites unknown WCAG SC {sc}",
                    m.id
                );
            }
            if m.category == Category::Accessibility && !m.best_practice {
                assert!(
                    m.level.is_some() && !m.wcag.is_empty(),
                    "{} needs a WCAG level and SC",
                    m.id
                );
            }
        }
    }

    #[test]
    fn sets_resolve_and_unknown_names_are_errors() {
        let all = select(&["all"]).unwrap();
        // Every rule but `analysis-incomplete`, which the runner reports itself.
        assert_eq!(all.page.len() + all.site.len() + 1, all_meta().count());
        // Sets are category-pure: the API's type-specific endpoints restrict a
        // scan to the set of their category.
        let seo = select(&["seo"]).unwrap();
        assert!(seo
            .page
            .iter()
            .map(|r| r.meta())
            .chain(seo.site.iter().map(|r| r.meta()))
            .all(|m| m.category == Category::Seo));
        let one = select(&["document-title"]).unwrap();
        assert_eq!(one.ids(), vec!["document-title"]);
        let err = select(&["wcag-aa,nope"]).unwrap_err();
        assert_eq!(err.name, "nope");
        assert!(err.to_string().contains("wcag-aa"));
    }
}
