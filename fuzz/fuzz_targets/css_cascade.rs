//! Fuzz target `css_cascade`: see [`sitescan_fuzz::css_cascade`].
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| sitescan_fuzz::css_cascade(data));
