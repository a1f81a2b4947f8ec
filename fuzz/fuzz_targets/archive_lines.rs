#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| ar_fuzz_checks::archive::check(data));
