//! Fuzz target `html_rules`: see [`sitescan_fuzz::html_rules`].
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| sitescan_fuzz::html_rules(data));
