//! Fuzz target `set_cookie`: see [`sitescan_fuzz::set_cookie`].
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| sitescan_fuzz::set_cookie(data));
