//! Fuzz target `sitemap`: see [`sitescan_fuzz::sitemap`].
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| sitescan_fuzz::sitemap(data));
