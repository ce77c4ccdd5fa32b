//! SEO rules: what search engines need from each page. Site-wide SEO checks
//! (duplicates, orphans, hreflang return links) are in [`crate::site`].
//! One file per rule, named for its id.

pub mod canonical;
pub mod crawlable_anchors;
pub mod dead_end;
pub mod heading_h1;
pub mod hreflang;
pub mod http_status_code;
pub mod internal_nofollow;
pub mod is_crawlable;
pub mod link_text;
pub mod localhost_links;
pub mod meta_description;
pub mod page_depth;
pub mod redirect_chain;
pub mod robots_directives;
pub mod seo_title;
pub mod social_meta;
pub mod structured_data;
pub mod thin_content;
pub mod too_many_links;
pub mod url_hygiene;
pub mod viewport;
