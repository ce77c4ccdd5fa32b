//! Performance rules: static, reproducible signals from crawl timings and markup
//! (no browser). One file per rule, named for its id.

pub mod dom_size;
pub mod download_time;
pub mod font_display;
pub mod html_size;
pub mod long_cache_ttl;
pub mod modern_http;
pub mod modern_image_formats;
pub mod oversized_images;
pub mod render_blocking_resources;
pub mod server_response_time;
pub mod start_page_redirects;
pub mod text_compression;
pub mod third_party_origins;
pub mod total_byte_weight;
pub mod unminified_code;
pub mod unsized_images;
