//! Fuzz target `srcset`: see [`sitescan_fuzz::srcset`].
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| sitescan_fuzz::srcset(data));
