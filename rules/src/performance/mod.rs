//! Performance rules: static, reproducible signals from crawl timings and markup
//! (no browser), and in render mode the lab Web Vitals the browser measured
//! ([`crate::vitals`]). One file per rule, named for its id.

// Each rule of the category, in report order: its module (the file named for
// its id) and its type. Adding a rule is its file plus one line here.
crate::rule_modules! { page:
    server_response_time::ServerResponseTime,
    download_time::DownloadTime,
    html_size::HtmlSize,
    text_compression::TextCompression,
    dom_size::DomSize,
    render_blocking_resources::RenderBlockingResources,
    unsized_images::UnsizedImages,
    modern_image_formats::ModernImageFormats,
    modern_http::ModernHttp,
    start_page_redirects::StartPageRedirects,
    third_party_origins::ThirdPartyOrigins,
    font_display::FontDisplay,
    unminified_code::UnminifiedCode,
    total_byte_weight::TotalByteWeight,
    long_cache_ttl::LongCacheTtl,
    oversized_images::OversizedImages,
    first_contentful_paint::FirstContentfulPaint,
    largest_contentful_paint::LargestContentfulPaint,
    cumulative_layout_shift::CumulativeLayoutShift,
    total_blocking_time::TotalBlockingTime,
}
