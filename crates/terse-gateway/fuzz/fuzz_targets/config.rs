//! Fuzz target: arbitrary text as a gateway config file.
//!
//! Whatever the text, `Config::parse` returns a config or one error, never
//! panics; an error is one line whose line number is within the text; a
//! config builds its layer, server options and upstream without panicking.
//! Seeds: the example configs in `examples/gateway`.

#![no_main]

use libfuzzer_sys::fuzz_target;
use terse_gateway::Config;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match Config::parse("fuzz.toml", text) {
        Ok(config) => {
            let _ = config.layer();
            let _ = config.server_options();
            let _ = config.listen();
            let url = config.upstream_url().unwrap_or("http://127.0.0.1:9");
            let _ = config.upstream(url);
        }
        Err(err) => {
            let message = err.to_string();
            assert!(!message.contains('\n'), "one line: {message:?}");
            if let Some(line) = err.line() {
                assert!(line >= 1 && line <= text.lines().count() + 1, "line {line} of {message:?}");
            }
        }
    }
});
