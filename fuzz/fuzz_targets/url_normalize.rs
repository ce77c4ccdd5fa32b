//! Fuzz target `url_normalize`: see [`sitescan_fuzz::url_normalize`].
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| sitescan_fuzz::url_normalize(data));
