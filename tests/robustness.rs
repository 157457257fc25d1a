//! A bounded fuzz test: random programs and goals made from the grammar,
//! and byte mutations of the files in `programs/`, are loaded and queried.
//! Whatever the input, the interpreter must not panic, must either load the
//! program or report at least one rendered diagnostic, and must stop every
//! query (a deadline, as `--timeout` sets, bounds each one).
//!
//! The random source is a seeded xorshift generator written here (no
//! dependency, and every run tries the same inputs, so a failure can be
//! replayed).  `cargo fuzz run load` (see `fuzz/`) explores much longer.

mod common;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::{Duration, Instant};

use lolli::diagnostics::Severity;
use lolli::engine::{Host, Options};
use lolli::Session;

/// xorshift64*: small, fast, good enough to pick grammar productions.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    fn pick<'a>(&mut self, xs: &[&'a str]) -> &'a str {
        xs[self.below(xs.len())]
    }
    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
}

/// Output goes nowhere; input is empty.
struct Discard;

impl Host for Discard {
    fn write(&mut self, _text: &str) {}
    fn read_line(&mut self) -> Option<String> {
        None
    }
}

// Names that cannot touch the file system or the process (no `cd`,
// `telling`, `seeing`, `system`).
const NAMES: &[&str] = &[
    "p",
    "q",
    "r",
    "a",
    "b",
    "nil",
    "s",
    "z",
    "true",
    "erase",
    "fail",
    "write",
    "nl",
    "var",
    "nonvar",
    "explode",
    "generalize",
    "timing",
    "top",
    "pop",
    "popall",
    "abort",
    "bye",
    "load",
    "lists",
    "'quoted name'",
    "write_clause",
    "read",
];
const VARS: &[&str] = &["X", "Y", "Z", "_", "_Tail", "Acc"];
const INTS: &[&str] = &["0", "1", "42", "9223372036854775807", "-1", "7"];
const OPS: &[&str] = &[
    ",", "&", ";", "-o", "=>", ":-", "<=", "--o", "=", "is", "+", "-", "*", "/", "<", ">", "=<",
    ">=", "=:=", "=\\=", "::", "-->",
];
const TOKENS: &[&str] = &[
    "(", ")", "{", "}", ".", "\\", "|", "->", "forall", "exists", "MODULE", "LINEAR", "LOCAL",
    "MEMO", "%", "\"str\"", "'", "\"", "/*", "*/", "$",
];

fn term(rng: &mut Rng, depth: usize, out: &mut String) {
    let leaf = depth == 0 || rng.chance(30);
    if leaf {
        match rng.below(4) {
            0 => out.push_str(rng.pick(VARS)),
            1 => out.push_str(rng.pick(INTS)),
            2 => out.push_str("\"text\""),
            _ => out.push_str(rng.pick(NAMES)),
        }
        return;
    }
    match rng.below(7) {
        0 | 1 => {
            out.push_str(rng.pick(NAMES));
            for _ in 0..1 + rng.below(3) {
                out.push(' ');
                term(rng, 0, out);
            }
        }
        2 | 3 => {
            out.push('(');
            term(rng, depth - 1, out);
            out.push(' ');
            out.push_str(rng.pick(OPS));
            out.push(' ');
            term(rng, depth - 1, out);
            out.push(')');
        }
        4 => {
            out.push('{');
            term(rng, depth - 1, out);
            out.push('}');
        }
        5 => {
            out.push_str(if rng.chance(50) { "forall " } else { "exists " });
            out.push_str(rng.pick(VARS));
            out.push_str(" \\ ");
            term(rng, depth - 1, out);
        }
        _ => {
            out.push('(');
            term(rng, depth - 1, out);
            out.push_str(" -> ");
            term(rng, depth - 1, out);
            out.push_str(" | ");
            term(rng, depth - 1, out);
            out.push(')');
        }
    }
}

/// A clause head: a user predicate with a few arguments.
fn head(rng: &mut Rng, out: &mut String) {
    out.push_str(rng.pick(&["p", "q", "r", "a", "b"]));
    for _ in 0..rng.below(3) {
        out.push(' ');
        term(rng, 1, out);
    }
}

/// A program made from the grammar, with now and then a token out of place.
fn program(rng: &mut Rng) -> String {
    let mut out = String::new();
    for _ in 0..1 + rng.below(6) {
        match rng.below(12) {
            0 => out.push_str("MODULE fuzz X"),
            1 => out.push_str("LOCAL a hidden"),
            2 => out.push_str("MEMO p"),
            3 | 4 => {
                out.push_str("LINEAR ");
                head(rng, &mut out);
            }
            5 | 6 => head(rng, &mut out),
            7..=9 => {
                head(rng, &mut out);
                out.push_str(" :- ");
                term(rng, 4, &mut out);
            }
            _ => term(rng, 4, &mut out),
        }
        if rng.chance(10) {
            out.push(' ');
            out.push_str(rng.pick(TOKENS));
        }
        out.push_str(".\n");
    }
    out
}

fn goal(rng: &mut Rng) -> String {
    let mut g = String::new();
    term(rng, 3, &mut g);
    g
}

/// A byte mutation of `text`: flips, deletions, repeats, insertions, cuts.
fn mutate(rng: &mut Rng, text: &[u8]) -> Vec<u8> {
    let mut b = text.to_vec();
    for _ in 0..1 + rng.below(4) {
        let at = rng.below(b.len() + 1);
        match rng.below(5) {
            0 if at < b.len() => {
                const BYTES: &[u8] = b"().,:-o&;{}\\\"'%|=<>_ Xa1\n\xff";
                b[at] = BYTES[rng.below(BYTES.len())];
            }
            1 => {
                let end = (at + 1 + rng.below(12)).min(b.len());
                b.drain(at.min(end)..end);
            }
            2 => {
                let end = (at + 1 + rng.below(40)).min(b.len());
                let piece: Vec<u8> = b[at.min(end)..end].to_vec();
                b.splice(at.min(end)..at.min(end), piece);
            }
            3 => {
                let t = if rng.chance(50) {
                    rng.pick(TOKENS)
                } else {
                    rng.pick(OPS)
                };
                b.splice(at..at, t.bytes());
            }
            _ => b.truncate(at),
        }
    }
    b
}

/// What the inputs did, so that a test can show it was not vacuous.
#[derive(Default, Debug)]
struct Tally {
    loaded: usize,
    rejected: usize,
    answered: usize,
}

/// Load and query; panics (caught by the caller) are the failures sought.
fn exercise(text: &str, goals: &[String], tally: &mut Tally) {
    let options = Options {
        search_path: vec!["tests/diagnostics/modules".into()],
        ..Options::default()
    };
    let mut s = Session::with_options(options, Box::new(Discard));
    match s.load_str("fuzz.lolli", text) {
        Ok(()) => {
            tally.loaded += 1;
            let w = s.take_warnings();
            let shown = s.render_warnings(&w, Severity::Warning);
            assert_eq!(w.is_empty(), shown.is_empty(), "every warning is shown");
        }
        Err(errors) => {
            tally.rejected += 1;
            assert!(!errors.is_empty(), "a failed load names its errors");
            let shown = s.render(&errors);
            assert!(shown.contains("error["), "errors are rendered: {shown}");
        }
    }
    for g in goals {
        s.machine.options.deadline = Some(Instant::now() + Duration::from_millis(20));
        let prepared = match s.prepare(g) {
            Ok(p) => p,
            Err(e) => {
                assert!(s.render(&[e]).contains("error["));
                continue;
            }
        };
        let mut q = s.start(prepared);
        for _ in 0..3 {
            match q.next_answer() {
                Ok(Some(a)) => {
                    tally.answered += 1;
                    let _ = a.to_string();
                }
                Ok(None) => break,
                Err(e) => {
                    let shown = q.session().render(&[e]);
                    assert!(shown.contains("error["), "runtime errors are rendered");
                    break;
                }
            }
        }
    }
}

fn check(text: &str, goals: &[String], tally: &mut Tally) {
    let r = catch_unwind(AssertUnwindSafe(|| exercise(text, goals, tally)));
    assert!(r.is_ok(), "panic on program:\n{text}\nwith goals {goals:?}");
}

#[test]
fn random_programs_from_the_grammar_never_crash() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut tally = Tally::default();
    for _ in 0..600 {
        let p = program(&mut rng);
        let goals = vec![goal(&mut rng), goal(&mut rng)];
        check(&p, &goals, &mut tally);
    }
    // Both paths were taken many times.
    assert!(
        tally.loaded >= 40 && tally.rejected >= 40 && tally.answered >= 15,
        "{tally:?}"
    );
}

#[test]
fn mutated_example_programs_never_crash() {
    let mut files: Vec<_> = std::fs::read_dir("programs")
        .expect("programs/ exists")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "lolli" || e == "ll"))
        .collect();
    files.sort();
    assert!(!files.is_empty());
    let mut rng = Rng(0xD1B5_4A32_D192_ED03);
    let mut tally = Tally::default();
    for f in files {
        let original = std::fs::read(&f).expect("readable program");
        for _ in 0..60 {
            let bytes = mutate(&mut rng, &original);
            let text = String::from_utf8_lossy(&bytes).into_owned();
            // Programs that reach outside (files, directories, the shell)
            // are only loaded, never run.
            let outside = ["telling", "seeing", "system", "cd "]
                .iter()
                .any(|w| text.contains(w));
            let goals = if outside {
                Vec::new()
            } else {
                // Call a name of the program with a few open arguments.
                let mut names: Vec<&str> = text
                    .split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
                    .filter(|w| w.starts_with(|c: char| c.is_ascii_lowercase()))
                    .collect();
                names.push("p");
                let mut g = rng.pick(&names).to_string();
                for _ in 0..rng.below(3) {
                    g.push_str(" _");
                }
                vec![g, goal(&mut rng)]
            };
            check(&text, &goals, &mut tally);
        }
    }
    assert!(tally.loaded >= 10 && tally.rejected >= 10, "{tally:?}");
}

#[test]
fn a_long_conjunction_loads_and_runs_in_the_binary() {
    // The binary runs the interpreter on a thread with a large stack, so the
    // syntax tree of a 50,000-goal clause can be compiled and dropped.
    let dir = common::temp_dir("long");
    let file = dir.join("long.lolli");
    let body = vec!["q"; 50_000].join(", ");
    std::fs::write(&file, format!("p :- {body}.\nq.\n")).expect("write");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_lolli"))
        .arg(&file)
        .args(["-e", "p"])
        .output()
        .expect("run lolli");
    assert_eq!(String::from_utf8_lossy(&out.stdout), "yes\n");
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn deep_terms_in_the_source_load_and_run_in_the_binary() {
    // A numeral 100,000 `s` deep and a list of 100,000 elements, written in
    // the program and in the goal.  Loading walked each compound term's
    // chain of last arguments (to find where its cells end), so a term
    // took time quadratic in its depth: 14 s for this numeral in a
    // release build, minutes in a debug one.
    let (n, m) = (100_000, 20_000);
    let dir = common::temp_dir("deep-src");
    let file = dir.join("deep.lolli");
    let numeral = format!("{}z{}", "(s ".repeat(n), ")".repeat(n));
    let list = format!("({}nil)", "a :: ".repeat(n));
    std::fs::write(
        &file,
        format!(
            "nat {numeral}.\nlst {list}.\n\
             check D L :- nat X, depth X 0 D, lst Y, len Y 0 L.\n\
             depth z D D.\n\
             depth (s X) A D :- B is A + 1, depth X B D.\n\
             len nil L L.\n\
             len (_ :: T) A L :- B is A + 1, len T B L.\n"
        ),
    )
    .expect("write");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_lolli"))
        .arg(&file)
        .args(["-e", "check D L"])
        // (An argument longer than 128 KB is refused by the system.)
        .args([
            "-e",
            &format!("depth {}z{} 0 D", "(s ".repeat(m), ")".repeat(m)),
        ])
        .output()
        .expect("run lolli");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        format!("D = {n}, L = {n}\nD = {m}\n"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn deep_terms_in_the_source_load_and_run_on_an_ordinary_stack() {
    // Through the library, on the test's own thread (2 MB of stack): a
    // numeral 100,000 `s` deep, a list of 100,000 elements and a clause of
    // 100,000 goals in the program, the numeral again in the query.
    // Compiling, printing and dropping their syntax trees recursed a level
    // per subterm, and overflowed the stack at a depth of 10,000.
    let n = 100_000;
    let numeral = format!("{}z{}", "(s ".repeat(n), ")".repeat(n));
    let list = format!("({}nil)", "a :: ".repeat(n));
    let body = vec!["q"; n].join(", ");
    let mut s = Session::new();
    s.load_str(
        "deep",
        &format!(
            "nat {numeral}.\nlst {list}.\np :- {body}.\nq.\n\
             depth z D D.\n\
             depth (s X) A D :- B is A + 1, depth X B D.\n\
             len nil L L.\n\
             len (_ :: T) A L :- B is A + 1, len T B L.\n"
        ),
    )
    .expect("loads");
    assert!(s.take_warnings().is_empty());
    let goal = format!("p, nat X, depth X 0 D, lst Y, len Y 0 L, depth {numeral} 0 E");
    let mut q = s.query(&goal).expect("parses");
    let a = q.next_answer().expect("runs").expect("an answer");
    for var in ["D", "L", "E"] {
        assert_eq!(a.value(var), Some(&lolli::Value::Int(n as i64)), "{var}");
    }
    let x = a.value("X").expect("X is bound");
    let printed = x.to_string();
    assert!(
        printed.starts_with("s (s (s ") && printed.ends_with(&format!("(s z{}", ")".repeat(n - 1)))
    );
    assert_eq!(printed.matches('s').count(), n);
    let debug = format!("{x:?}");
    assert!(debug.starts_with(r#"Compound("s", [Compound("s", "#));
    assert_eq!(debug.matches("Compound").count(), n);
    drop(q);
    drop(s);
}

#[test]
fn the_proof_of_a_deep_answer_is_built_checked_and_dropped_on_an_ordinary_stack() {
    // Through the library, on the test's own thread (2 MB of stack): the
    // proof of `nat X` holds the fact's numeral, 100,000 `s` deep, in the
    // query, in the program and in its one step.  Building, cloning,
    // comparing, printing, checking and dropping it recursed a level per
    // subterm.
    let n = 100_000;
    let numeral = format!("{}z{}", "(s ".repeat(n), ")".repeat(n));
    let mut s = Session::new();
    s.load_str("deep", &format!("nat {numeral}.\n"))
        .expect("loads");
    s.machine.options.proofs = true;
    let mut q = s.query("nat X").expect("parses");
    assert!(q.next_answer().expect("runs").is_some());
    let proof = q.proof().expect("a proof is recorded");
    assert_eq!(proof.check(), Ok(()));
    let copy = proof.clone();
    assert!(copy == proof);
    let shown = proof.query.to_string();
    assert!(shown.starts_with("nat (s (s ") && shown.ends_with(&format!("z{}", ")".repeat(n))));
    let tree = lolli::proof::print_tree::tree(&proof);
    assert!(tree.starts_with("atom nat (s (s ") && tree.matches("nat").count() == 1);
    assert_eq!(format!("{:?}", proof.query).matches("App").count(), n + 1);
    drop(copy);
    drop(proof);
}

#[test]
fn a_long_list_answer_is_read_and_dropped_on_an_ordinary_stack() {
    // Through the library, on the test's own thread (2 MB of stack): the
    // answer's value is a list nested 200,000 deep, made, cloned, printed,
    // compared, hashed and dropped without recursion.
    let mut s = Session::new();
    let mut q = s.query("findall X (between 1 200000 X) L").expect("parses");
    let a = q.next_answer().expect("runs").expect("an answer");
    let v = a.value("L").expect("L is bound").clone();
    let items = v.as_list().expect("a proper list");
    assert_eq!(items.len(), 200_000);
    assert_eq!(items[199_999], lolli::Value::Int(200_000));
    let text = v.to_string();
    assert!(text.starts_with("1 :: 2 :: ") && text.ends_with(":: 200000 :: nil"));
    let same = lolli::Value::list((1..=200_000).map(lolli::Value::Int).collect());
    let other = lolli::Value::list(
        (1..=200_000)
            .map(|i| lolli::Value::Int(i % 199_999))
            .collect(),
    );
    assert!(v == same && v != other);
    let set: std::collections::HashSet<lolli::Value> = [same, other].into_iter().collect();
    assert!(set.contains(&v) && set.len() == 2);
    drop(v);
    drop(a);
}

#[test]
fn nested_negations_and_aggregates_run_on_an_ordinary_stack() {
    // Through the library, on the test's own thread (2 MB of stack): each
    // level of `not`, `count` or `findall` inside the goal of another runs
    // a search of its own, with a few kilobytes of native stack.  20,000
    // levels need far more than 2 MB; they used to overflow the stack (and
    // abort the process) from about 190,000 levels in the binary.
    let mut s = Session::new();
    s.load_str(
        "nest",
        "MODULE nest.\n\
         n 0 :- fail.\n\
         n N :- N > 0, M is N - 1, not (n M).\n\
         c 0.\n\
         c N :- N > 0, M is N - 1, count (c M) K, K = 1.\n\
         f 0.\n\
         f N :- N > 0, M is N - 1, findall x (f M) L, L = (x :: nil).\n",
    )
    .expect("loads");
    for goal in ["n 20001", "c 20000", "f 20000"] {
        let mut q = s.query(goal).expect("parses");
        assert!(q.next_answer().expect("runs").is_some(), "`{goal}`");
    }
    // An even depth of `not`s fails.
    let mut q = s.query("n 20000").expect("parses");
    assert!(q.next_answer().expect("runs").is_none());
}

#[test]
fn nested_aggregates_stop_at_the_memory_limit() {
    // The native stack each level takes counts against `--max-memory`, so
    // a nesting deep enough to exhaust memory stops with an error.
    let dir = common::temp_dir("nest");
    let file = dir.join("nest.lolli");
    std::fs::write(&file, "c 0.\nc N :- N > 0, M is N - 1, count (c M) _.\n").expect("write");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_lolli"))
        .args(["--max-memory", "100"])
        .arg(&file)
        .args(["-e", "c 10000000"])
        .output()
        .expect("run lolli");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("the query was stopped by the memory limit"),
        "{err}"
    );
}

#[cfg(unix)]
#[test]
fn a_program_file_that_never_ends_stops_at_the_memory_limit() {
    // `/dev/zero` never ends: it is read up to an eighth of the memory
    // limit (64 MiB at least), not until the memory is full (tester-s13
    // finding 3).
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_lolli"))
        .args(["--max-memory", "200", "/dev/zero", "-e", "true"])
        .output()
        .expect("run lolli");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("cannot read `/dev/zero`: it is longer than 67108864 bytes"),
        "{err}"
    );
}
