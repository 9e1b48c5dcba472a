//! The permalink decoder on any text: never panics; a state it accepts encodes to a
//! link that decodes to the same state.
#![no_main]
use compiler_core::share::{decode, encode_state, Link};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let url = String::from_utf8_lossy(data);
    for candidate in [
        url.to_string(),
        format!("#v1.{url}"),
        format!("#example={url}"),
    ] {
        if let Ok(Link::State(s)) = decode(&candidate) {
            let again = decode(&encode_state(&s)).expect("an encoded state decodes");
            assert!(matches!(again, Link::State(t) if t == s));
        }
    }
});
