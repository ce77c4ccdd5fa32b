//! SEO rules: what search engines need from each page. Site-wide SEO checks
//! (duplicates, orphans, hreflang return links) are in [`crate::site`].
//! One file per rule, named for its id.

// Each rule of the category, in report order: its module (the file named for
// its id) and its type. Adding a rule is its file plus one line here.
crate::rule_modules! { page:
    http_status_code::HttpStatusCode,
    redirect_chain::RedirectChain,
    is_crawlable::IsCrawlable,
    robots_directives::RobotsDirectives,
    seo_title::SeoTitle,
    meta_description::MetaDescription,
    heading_h1::HeadingH1,
    canonical::Canonical,
    hreflang::Hreflang,
    viewport::Viewport,
    structured_data::StructuredData,
    social_meta::SocialMeta,
    url_hygiene::UrlHygiene,
    crawlable_anchors::CrawlableAnchors,
    link_text::LinkText,
    internal_nofollow::InternalNofollow,
    too_many_links::TooManyLinks,
    localhost_links::LocalhostLinks,
    dead_end::DeadEnd,
    thin_content::ThinContent,
    page_depth::PageDepth,
}
