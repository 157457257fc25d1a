//! Runs the sample session written inside every program in `programs/`.
//!
//! A session is a sequence of comment lines in the program file:
//!
//! ```text
//! %? goal                 run `lolli FILE -e goal` (first answer)
//! %* goal                 run `lolli FILE --all -e goal` (every answer)
//! %= expected line        the exact standard output, one line each
//! ```
//!
//! `%?!` and `%*!` mark a goal too heavy for a debug build: it runs only
//! when the tests are built with optimizations (`cargo test --release`).
//!
//! Each goal runs four times: as written, with `--check-proofs` (every
//! answer's proof recorded and checked), with the heap collected every
//! few steps (`LOLLI_GC_STRESS`), and as a parallel search of three
//! workers that splits at every chance (`-j 3` with `LOLLI_SPLIT_STRESS`);
//! all four must print the same.
//!
//! Every `%=` line after a goal belongs to it (an empty expected line is
//! written `%=` alone).  A program must have at least one goal, and each goal
//! at least one expected line, so no program passes vacuously.

mod common;

use common::{sample_goals, sample_programs};
use std::path::Path;
use std::process::Command;

fn run_program(path: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(path).expect("program file is readable");
    let cases = sample_goals(&text);
    assert!(!cases.is_empty(), "{}: no `%?` goals", path.display());
    let mut failures = Vec::new();
    for c in cases {
        assert!(
            !c.expected.is_empty(),
            "{}:{}: goal without `%=` expected output",
            path.display(),
            c.line
        );
        if c.release_only && cfg!(debug_assertions) {
            continue;
        }
        // The session as written, then again with every answer's proof
        // recorded and checked: the same output and exit status (a
        // rejected proof is an error, status 2).
        // A third time with the heap collected every 64 steps
        // (`LOLLI_GC_STRESS`, see src/engine/machine/gc.rs), and a fourth
        // split between three workers as often as it can be
        // (src/engine/parallel.rs).
        let mut status = None;
        for (check, stress, split) in [
            (false, false, false),
            (true, false, false),
            (false, true, false),
            (false, false, true),
        ] {
            let mut cmd = Command::new(env!("CARGO_BIN_EXE_lolli"));
            cmd.arg(path);
            if split {
                cmd.args(["-j", "3"]).env("LOLLI_SPLIT_STRESS", "1");
            }
            if c.all {
                cmd.arg("--all");
            }
            if check {
                cmd.arg("--check-proofs");
            }
            if stress {
                cmd.env("LOLLI_GC_STRESS", "1");
            }
            cmd.arg("-e").arg(&c.goal);
            let out = cmd.output().expect("the lolli binary runs");
            let stdout = String::from_utf8_lossy(&out.stdout);
            let got: Vec<String> = stdout.lines().map(str::to_string).collect();
            let first = *status.get_or_insert(out.status.code());
            if got != c.expected || out.status.code() != first {
                failures.push(format!(
                    "{}:{}: `{}`{}\n--- expected\n{}\n--- got\n{}\n--- stderr\n{}",
                    path.display(),
                    c.line,
                    c.goal,
                    match (check, stress, split) {
                        (true, _, _) => " with --check-proofs",
                        (_, true, _) => " with LOLLI_GC_STRESS",
                        (_, _, true) => " with -j 3 and LOLLI_SPLIT_STRESS",
                        _ => "",
                    },
                    c.expected.join("\n"),
                    got.join("\n"),
                    String::from_utf8_lossy(&out.stderr)
                ));
            }
        }
    }
    failures
}

/// Every program's session, in one test so a failure lists them all.
#[test]
fn every_program_session_matches() {
    let files = sample_programs();
    assert!(files.len() >= 15, "expected the whole collection");
    let mut failures = Vec::new();
    for f in &files {
        failures.extend(run_program(f));
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n\n"));
}

/// The tour's programs are examples to copy: none draws a load-time
/// warning (with `-W error`, one would stop the run with status 2).  The
/// goal `erase` uses up their resources, so nothing else is said.
#[test]
fn every_program_loads_without_warnings() {
    let mut noisy = Vec::new();
    for f in sample_programs() {
        let out = Command::new(env!("CARGO_BIN_EXE_lolli"))
            .args(["-W", "error"])
            .arg(&f)
            .args(["-e", "erase"])
            .output()
            .expect("lolli runs");
        if out.status.code() == Some(2) || !out.stderr.is_empty() {
            noisy.push(format!(
                "{}:\n{}",
                f.display(),
                String::from_utf8_lossy(&out.stderr)
            ));
        }
    }
    assert!(noisy.is_empty(), "\n{}", noisy.join("\n"));
}

#[test]
fn session_format_is_read_as_documented() {
    let cs = sample_goals("% text\n%? p X\n%= X = 1\n%=\n%* q\n%= yes\n%= no\n%?! r\n%= yes\n");
    assert_eq!(cs.len(), 3);
    assert!(cs[2].release_only && !cs[1].release_only);
    assert_eq!(
        (cs[0].line, cs[0].all, cs[0].goal.as_str()),
        (2, false, "p X")
    );
    assert_eq!(cs[0].expected, ["X = 1", ""]);
    assert_eq!((cs[1].all, cs[1].expected.len()), (true, 2));
}

/// Lolli 0.94 lets `LOCAL` name a predicate (`LOCAL sw.  LINEAR sw off.`);
/// here such a clause is rejected as a definition of `$apply`.
#[test]
fn local_name_as_predicate() {
    let mut s = lolli::Session::new();
    s.load_str("switch", "LOCAL sw.\nLINEAR sw off.\nstate S :- sw S.")
        .expect("a LOCAL predicate loads");
    let a = s.query("state S").unwrap().next().unwrap().unwrap();
    assert_eq!(a.to_string(), "S = off");
}

/// A variable-headed application bound at run time (`L = K 1, (L -o G)`)
/// should be assumed as the clause `col 1`.
#[test]
fn assume_applied_variable_head() {
    let mut s = lolli::Session::new();
    let a = s.query("K = col, L = K 1, (L -o col X)").unwrap().next();
    assert_eq!(a.unwrap().unwrap().value("X"), Some(&lolli::Value::Int(1)));
}

/// Names of the predicates a program's clauses define, and for each, the
/// names its clauses call (every name applied in a body, over-approximated).
fn call_graph(text: &str) -> std::collections::BTreeMap<String, Vec<String>> {
    use lolli::syntax::{Item, Term, TermKind};
    fn head(t: &Term) -> Option<&str> {
        match &t.kind {
            TermKind::Name(n) => Some(n),
            TermKind::App(h, args) => match (&h.kind, args.as_slice()) {
                (TermKind::Name(op), [l, r]) if op == ":-" || op == "<=" => {
                    let _ = r;
                    head(l)
                }
                (TermKind::Name(op), [l, r]) if op == "-o" || op == "=>" => {
                    let _ = l;
                    head(r)
                }
                (TermKind::Name(op), [l, _]) if op == "&" => head(l),
                (TermKind::Name(n), _) => Some(n),
                _ => None,
            },
            TermKind::Binder(_, _, _, body) => head(body),
            _ => None,
        }
    }
    fn names(t: &Term, out: &mut Vec<String>) {
        let mut stack = vec![t];
        while let Some(t) = stack.pop() {
            match &t.kind {
                TermKind::Name(n) => out.push(n.clone()),
                TermKind::App(h, args) => {
                    stack.push(h);
                    stack.extend(args.iter());
                }
                TermKind::Binder(_, _, _, body) => stack.push(body),
                _ => {}
            }
        }
    }
    let (items, _) = lolli::syntax::parse_program(text);
    let mut graph: std::collections::BTreeMap<String, Vec<String>> = Default::default();
    for item in &items {
        let t = match item {
            Item::Clause(t) | Item::Linear(t, _) => t,
            _ => continue,
        };
        if let Some(h) = head(t) {
            let mut called = Vec::new();
            names(t, &mut called);
            graph.entry(h.to_string()).or_default().extend(called);
        }
    }
    graph
}

/// Memoizing failure changes no answer and no order: every program's
/// session again, with `--memo` on every predicate it defines whose search
/// cannot reach a built-in with side effects (where memoization is sound).
#[test]
fn every_program_session_matches_with_memo() {
    let effects = [
        "write",
        "write_sans",
        "write_clause",
        "write_raw",
        "nl",
        "read",
        "telling",
        "seeing",
        "timing",
        "load",
        "cd",
        "system",
        "top",
        "pop",
        "popall",
        "abort",
        "bye",
        "exit",
    ];
    let mut failures = Vec::new();
    let mut memoized = 0;
    for path in sample_programs() {
        let text = std::fs::read_to_string(&path).expect("program file is readable");
        let graph = call_graph(&text);
        let reaches_effect = |p: &str| {
            let mut seen = std::collections::BTreeSet::new();
            let mut todo = vec![p.to_string()];
            while let Some(q) = todo.pop() {
                if effects.contains(&q.as_str()) {
                    return true;
                }
                if seen.insert(q.clone()) {
                    todo.extend(graph.get(&q).into_iter().flatten().cloned());
                }
            }
            false
        };
        let sound: Vec<&String> = graph.keys().filter(|p| !reaches_effect(p)).collect();
        memoized += sound.len();
        for c in sample_goals(&text) {
            if c.release_only && cfg!(debug_assertions) {
                continue;
            }
            let mut cmd = Command::new(env!("CARGO_BIN_EXE_lolli"));
            cmd.arg(&path).arg("-W").arg("none");
            for p in &sound {
                cmd.arg("--memo").arg(p);
            }
            if c.all {
                cmd.arg("--all");
            }
            cmd.arg("-e").arg(&c.goal);
            let out = cmd.output().expect("the lolli binary runs");
            let got: Vec<String> = String::from_utf8_lossy(&out.stdout)
                .lines()
                .map(str::to_string)
                .collect();
            if got != c.expected {
                failures.push(format!(
                    "{}:{}: `{}` with --memo {:?}\n--- expected\n{}\n--- got\n{}",
                    path.display(),
                    c.line,
                    c.goal,
                    sound,
                    c.expected.join("\n"),
                    got.join("\n")
                ));
            }
        }
    }
    assert!(memoized > 20, "too few predicates memoized: {memoized}");
    assert!(failures.is_empty(), "\n{}", failures.join("\n\n"));
}
