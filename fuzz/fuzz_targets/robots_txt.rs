//! Fuzz target `robots_txt`: see [`sitescan_fuzz::robots_txt`].
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| sitescan_fuzz::robots_txt(data));
