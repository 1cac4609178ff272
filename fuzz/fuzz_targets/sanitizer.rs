#![no_main]

include!("../checks.rs");

libfuzzer_sys::fuzz_target!(|data: &[u8]| sanitizer(data));
