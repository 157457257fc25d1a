//! Snapshot tests of every diagnostic the command line prints.
//!
//! Each `tests/diagnostics/NAME.lolli` is a small broken program; lines at
//! its top say how to run it:
//!
//! ```text
//! % goal: G        a goal to run with `-e` (repeatable)
//! % args: A B ...  more command-line arguments, before the file
//! % exit: N        the expected exit status (2 if absent)
//! ```
//!
//! The harness runs `lolli [args] tests/diagnostics/NAME.lolli [-e G]...`
//! from the package root and compares its stderr, exactly, with
//! `NAME.stderr`.  `UPDATE_EXPECT=1 cargo test --test diagnostics` rewrites
//! the expectation files from what the program prints.

use std::path::{Path, PathBuf};
use std::process::Command;

use pretty_assertions::assert_eq;

struct Case {
    goals: Vec<String>,
    args: Vec<String>,
    exit: i32,
}

fn header(text: &str) -> Case {
    let mut case = Case {
        goals: Vec::new(),
        args: Vec::new(),
        exit: 2,
    };
    for line in text.lines() {
        let Some(rest) = line.strip_prefix('%') else {
            break;
        };
        let rest = rest.trim();
        if let Some(g) = rest.strip_prefix("goal:") {
            case.goals.push(g.trim().to_string());
        } else if let Some(a) = rest.strip_prefix("args:") {
            case.args.extend(a.split_whitespace().map(str::to_string));
        } else if let Some(e) = rest.strip_prefix("exit:") {
            case.exit = e.trim().parse().expect("`% exit:` takes a number");
        }
    }
    case
}

fn cases() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir("tests/diagnostics")
        .expect("tests/diagnostics exists")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "lolli"))
        .collect();
    files.sort();
    files
}

fn run(path: &Path) -> (String, i32) {
    // A case may hold bytes that are not UTF-8 (after its header lines).
    let bytes = std::fs::read(path).expect("readable case");
    let text = String::from_utf8_lossy(&bytes);
    let case = header(&text);
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_lolli"));
    cmd.current_dir(env!("CARGO_MANIFEST_DIR"))
        .env_remove("LOLLI_PATH")
        .args(&case.args)
        .arg(path);
    for g in &case.goals {
        cmd.arg("-e").arg(g);
    }
    let out = cmd.output().expect("the lolli binary runs");
    let status = out.status.code().unwrap_or(-1);
    assert_eq!(
        status,
        case.exit,
        "exit status of {} (stderr:\n{})",
        path.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    (String::from_utf8_lossy(&out.stderr).into_owned(), status)
}

#[test]
fn every_broken_program_gives_its_expected_diagnostics() {
    std::env::set_current_dir(env!("CARGO_MANIFEST_DIR")).expect("package root");
    let update = std::env::var_os("UPDATE_EXPECT").is_some();
    let mut mismatches = Vec::new();
    let all = cases();
    assert!(all.len() >= 20, "the diagnostics cases are missing");
    for path in all {
        let (got, _) = run(&path);
        let expect_path = path.with_extension("stderr");
        if update {
            std::fs::write(&expect_path, &got).expect("writable expectation");
            continue;
        }
        let expected = std::fs::read_to_string(&expect_path).unwrap_or_default();
        if expected != got {
            mismatches.push((path, expected, got));
        }
    }
    if let Some((path, expected, got)) = mismatches.first() {
        let names: Vec<String> = mismatches
            .iter()
            .map(|(p, _, _)| p.display().to_string())
            .collect();
        eprintln!("mismatched cases: {}", names.join(", "));
        assert_eq!(
            expected,
            got,
            "{} (run with UPDATE_EXPECT=1 to accept)",
            path.display()
        );
    }
}

#[test]
fn every_expectation_has_its_program() {
    for e in std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/diagnostics"))
        .expect("tests/diagnostics exists")
        .flatten()
    {
        let p = e.path();
        if p.extension().is_some_and(|x| x == "stderr") {
            assert!(
                p.with_extension("lolli").is_file(),
                "{} has no program",
                p.display()
            );
        }
    }
}

#[test]
fn local_names_can_name_predicates() {
    let mut s = lolli::Session::new();
    let r = s.load_str(
        "hidden.lolli",
        "MODULE hidden.\nLOCAL helper.\nhelper 1.\nshow X :- helper X.\n",
    );
    assert!(r.is_ok(), "{}", s.render(&r.err().unwrap_or_default()));
    let mut q = s.query("show X").expect("the goal parses");
    let a = q.next_answer().expect("no runtime error");
    assert_eq!(a.map(|a| a.to_string()), Some("X = 1".to_string()));
}

#[test]
fn warnings_judge_files_loaded_together() {
    let mut s = lolli::Session::new();
    s.load_str("a.lolli", "main :- helper 1.\n").expect("loads");
    s.load_str("b.lolli", "helper N :- N = 1.\n")
        .expect("loads");
    // `helper` comes from the second file: no warning.
    assert_eq!(s.take_warnings(), Vec::new());
    s.load_str("c.lolli", "more :- helper 2, missing.\n")
        .expect("loads");
    let w = s.take_warnings();
    let got: Vec<(lolli::diagnostics::WarningKind, String)> =
        w.into_iter().map(|w| (w.kind, w.message)).collect();
    assert_eq!(
        got,
        vec![(
            lolli::diagnostics::WarningKind::UnknownPredicate,
            "`missing` is called with 0 arguments, but nothing defines it".to_string()
        )]
    );
}
