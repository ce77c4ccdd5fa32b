//! Fuzz target `csp`: see [`sitescan_fuzz::csp`].
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| sitescan_fuzz::csp(data));
