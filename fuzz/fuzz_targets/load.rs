//! Fuzz target: any bytes as a program, then its first line as a goal.
//!
//! Loading must either succeed or report rendered diagnostics, and the goal
//! must stop (a deadline bounds it) without a panic.  Run with
//! `cargo +nightly fuzz run load` from the repository root (seed the corpus
//! with `programs/*.lolli` for a faster start: `cp programs/*.lolli fuzz/corpus/load/`).
#![no_main]

use std::time::{Duration, Instant};

use libfuzzer_sys::fuzz_target;
use lolli::diagnostics::Severity;
use lolli::engine::{Host, Options};
use lolli::Session;

struct Discard;

impl Host for Discard {
    fn write(&mut self, _text: &str) {}
    fn read_line(&mut self) -> Option<String> {
        None
    }
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    // Nothing here may reach outside the process.
    if ["telling", "seeing", "system", "cd"]
        .iter()
        .any(|w| text.contains(w))
    {
        return;
    }
    let mut s = Session::with_options(
        Options {
            search_path: Vec::new(),
            ..Options::default()
        },
        Box::new(Discard),
    );
    match s.load_str("fuzz.lolli", &text) {
        Ok(()) => {
            let w = s.take_warnings();
            let _ = s.render_warnings(&w, Severity::Warning);
        }
        Err(errors) => {
            assert!(!errors.is_empty());
            assert!(s.render(&errors).contains("error["));
        }
    }
    let goal = text.lines().next().unwrap_or("true").to_string();
    s.machine.options.deadline = Some(Instant::now() + Duration::from_millis(100));
    let prepared = match s.prepare(&goal) {
        Ok(p) => p,
        Err(e) => {
            let _ = s.render(&[e]);
            return;
        }
    };
    let mut q = s.start(prepared);
    for _ in 0..3 {
        match q.next_answer() {
            Ok(Some(a)) => {
                let _ = a.to_string();
            }
            Ok(None) => break,
            Err(e) => {
                let _ = q.session().render(&[e]);
                break;
            }
        }
    }
});
