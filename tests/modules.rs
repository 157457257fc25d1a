//! Modules: `MODULE` parameters, `LOCAL` names, `LINEAR` clauses, loading
//! with `M --o G` and `load M`, the search path (`-I`, `LOLLI_PATH`, the
//! directories of files on the command line, the `.ll` extension) and the
//! errors when a module cannot be found or loaded.

mod common;

use std::path::Path;

use common::{lolli_in, ok, temp_dir, write_file, Run};
use pretty_assertions::assert_eq;

/// A directory holding the modules these tests load (removed when the
/// guard drops).
fn modules(name: &str) -> common::TempDir {
    let dir = temp_dir(name);
    write_file(
        &dir.join("counter.lolli"),
        "MODULE counter Start.\nLOCAL key.\nLINEAR cnt key Start.\n\
         get N :- cnt key N.\nmykey K :- K = key.\n",
    );
    write_file(&dir.join("greet.ll"), "MODULE greet Who.\nhello Who.\n");
    write_file(
        &dir.join("lib/util.lolli"),
        "MODULE util.\ntwice X (X :: X :: nil).\n",
    );
    write_file(
        &dir.join("secret.lolli"),
        "MODULE secret.\nLOCAL k.\nr k.\nsame X :- r X.\n",
    );
    dir
}

fn run(dir: &Path, args: &[&str]) -> Run {
    lolli_in(dir, args, "", &[])
}

fn error(stderr: &str) -> Run {
    Run {
        stdout: String::new(),
        stderr: stderr.to_string(),
        code: 2,
    }
}

#[test]
fn parameters_are_bound_to_the_module_term_arguments() {
    let dir = modules("params");
    assert_eq!(run(&dir, &["-e", "counter 5 --o get N"]), ok("N = 5\n"));
    assert_eq!(
        run(&dir, &["-e", "greet (f bob) --o hello X"]),
        ok("X = f bob\n")
    );
    // Two instances with different parameters; the newest is used first.
    assert_eq!(
        run(&dir, &["-e", "counter 5 --o counter 7 --o (get N, get M)"]),
        ok("N = 7, M = 5\n")
    );
    // A variable bound to the module's name, applied to its parameters.
    assert_eq!(
        run(&dir, &["-W", "none", "-e", "F = counter, F 5 --o get N"]),
        ok("F = counter, N = 5\n")
    );
}

#[test]
fn linear_clauses_of_a_module_must_be_consumed() {
    let dir = modules("linear");
    assert_eq!(
        run(&dir, &["-e", "counter 5 --o true"]),
        Run {
            stdout: "no\n".into(),
            stderr: "note: a proof was found but rejected: it left linear resources unused \
                     (`cnt key_1 5`); every linear resource must be used up, and `erase` \
                     uses up what is left\n"
                .into(),
            code: 1
        }
    );
    assert_eq!(
        run(&dir, &["-e", "counter 5 --o (get N, erase)"]),
        ok("N = 5\n")
    );
    assert_eq!(
        run(&dir, &["--count", "-e", "counter 5 --o (get N, get M)"]),
        ok("0\n")
    );
}

#[test]
fn local_names_are_hidden_from_outside() {
    let dir = modules("local");
    // The local constant `key` inside is not the name `key` outside.
    assert_eq!(
        run(&dir, &["-e", "counter 5 --o (cnt key N)"]),
        Run {
            stdout: "no\n".into(),
            stderr: String::new(),
            code: 1
        }
    );
    // A variable from outside the load may not capture a local name ...
    assert_eq!(
        run(&dir, &["-e", "counter 5 --o (mykey K, erase)"]),
        Run {
            stdout: "no\n".into(),
            stderr: String::new(),
            code: 1
        }
    );
    assert_eq!(
        run(&dir, &["-e", "secret --o same A"]),
        Run {
            stdout: "no\n".into(),
            stderr: String::new(),
            code: 1
        }
    );
    // ... but one introduced inside it may.
    assert_eq!(
        run(
            &dir,
            &["-e", "secret --o (exists X \\ (same X, write_sans X, nl))"]
        ),
        ok("k_1\nyes\n")
    );
    // Not through a term of an outer variable: once `A = f X` holds, `X`
    // may hold only what `A` may (either order of the two goals).
    for goal in [
        "secret --o (exists X \\ (A = f X, same X))",
        "secret --o (exists X \\ (same X, A = f X))",
    ] {
        assert_eq!(
            run(&dir, &["-e", goal]),
            Run {
                stdout: "no\n".into(),
                stderr: String::new(),
                code: 1
            },
            "{goal}"
        );
    }
}

#[test]
fn local_names_are_fresh_at_each_load() {
    let dir = modules("fresh");
    // Two loads give two different constants: of the four pairs, two are equal.
    assert_eq!(
        run(
            &dir,
            &[
                "--count",
                "-e",
                "secret --o secret --o exists X \\ exists Y \\ (r X, r Y, X = Y)"
            ]
        ),
        ok("2\n")
    );
    assert_eq!(
        run(
            &dir,
            &["-e", "secret --o secret --o (exists X \\ exists Y \\ (r X, r Y, write_sans (X / Y), nl, fail))"]
        ),
        Run {
            stdout: "k_2 / k_2\nk_2 / k_1\nk_1 / k_2\nk_1 / k_1\nno\n".into(),
            stderr: String::new(),
            code: 1
        }
    );
}

#[test]
fn the_ll_extension_is_accepted() {
    let dir = modules("ll");
    assert_eq!(run(&dir, &["-e", "greet bob --o hello X"]), ok("X = bob\n"));
}

#[test]
fn modules_are_found_through_i_and_lolli_path() {
    let dir = modules("path");
    assert_eq!(
        run(&dir, &["-I", "lib", "-e", "util --o twice a L"]),
        ok("L = a :: a :: nil\n")
    );
    assert_eq!(
        lolli_in(
            &dir,
            &["-e", "util --o twice a L"],
            "",
            &[("LOLLI_PATH", "lib")]
        ),
        ok("L = a :: a :: nil\n")
    );
    let lib = dir.join("lib");
    let path =
        std::env::join_paths([Path::new("/nonexistent"), lib.as_path()]).expect("a path list");
    assert_eq!(
        lolli_in(
            &dir,
            &["-e", "util --o twice a L"],
            "",
            &[("LOLLI_PATH", path.to_str().expect("utf-8"))]
        ),
        ok("L = a :: a :: nil\n")
    );
}

#[test]
fn modules_are_found_beside_files_on_the_command_line() {
    let dir = modules("beside");
    write_file(&dir.join("lib/main.lolli"), "go L :- util --o twice c L.\n");
    let elsewhere = temp_dir("beside-cwd");
    let main = dir.join("lib/main.lolli");
    assert_eq!(
        run(&elsewhere, &[main.to_str().expect("utf-8"), "-e", "go L"]),
        ok("L = c :: c :: nil\n")
    );
}

#[test]
fn load_is_a_nested_top_level() {
    let dir = modules("load");
    let run = lolli_in(
        &dir,
        &[],
        "load (greet ann).\nhello X.\npop.\nhello X.\n",
        &[],
    );
    assert_eq!((run.stdout.as_str(), run.code), ("X = ann\nno\n", 0));
    // After `pop.` nothing defines `hello`: the last goal is told so.
    assert_eq!(
        run.stderr.matches("warning[W002]").count(),
        1,
        "{}",
        run.stderr
    );
}

#[test]
fn a_file_on_the_command_line_is_loaded_like_a_module() {
    let dir = modules("cmdline");
    // Its parameter is a fresh variable; its LINEAR clause is a resource.
    assert_eq!(run(&dir, &["counter.lolli", "-e", "get N"]), ok("yes\n"));
    assert_eq!(
        run(&dir, &["counter.lolli", "-e", "true"]),
        Run {
            stdout: "no\n".into(),
            stderr: "note: a proof was found but rejected: it left linear resources unused \
                     (`cnt key_1 Start`); every linear resource must be used up, and `erase` \
                     uses up what is left\n"
                .into(),
            code: 1
        }
    );
}

#[test]
fn a_file_on_the_command_line_may_declare_another_module_name() {
    // A copy of a program under another file name (a new board, say) is
    // loaded by its path whatever its header says ...
    let dir = modules("renamed");
    write_file(
        &dir.join("board2.lolli"),
        "MODULE solitaire.\nLINEAR b z peg.\nmove :- b z peg.\n",
    );
    assert_eq!(run(&dir, &["board2.lolli", "-e", "move"]), ok("yes\n"));
    // ... but a module found by name must declare that name.
    let r = run(&dir, &["-e", "board2 --o move"]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr
            .contains("this file declares module `solitaire`, but it is loaded as module `board2`"),
        "{}",
        r.stderr
    );
}

#[test]
fn a_missing_module_names_the_directories_searched() {
    let dir = modules("missing");
    assert_eq!(
        run(&dir, &["-e", "nosuch --o true"]),
        error(
            "error[E003]: module `nosuch` not found\n \
             = while running the goal `nosuch --o true`\n \
             = looked for `nosuch.lolli` and `nosuch.ll` in: .\n\n"
        )
    );
    assert_eq!(
        run(&dir, &["-I", "lib", "-e", "nosuch --o true"]),
        error(
            "error[E003]: module `nosuch` not found\n \
             = while running the goal `nosuch --o true`\n \
             = looked for `nosuch.lolli` and `nosuch.ll` in: ., lib\n\n"
        )
    );
}

#[test]
fn a_module_given_the_wrong_number_of_parameters_is_an_error() {
    let dir = modules("arity");
    assert_eq!(
        run(&dir, &["-e", "greet --o true"]),
        error(
            "error[E003]: module `greet` takes 1 parameter but was given 0\n \
             = while running the goal `greet --o true`\n\n"
        )
    );
}

#[test]
fn a_missing_file_on_the_command_line_is_an_error() {
    let dir = modules("nofile");
    assert_eq!(
        run(&dir, &["nofile.lolli", "-e", "true"]),
        error(
            "error[E002]: cannot find the program file `nofile.lolli`\n = looked in the directory `.`\n\n"
        )
    );
}

#[test]
fn a_syntax_error_in_a_file_stops_the_load() {
    let dir = modules("syntax");
    write_file(&dir.join("bad.lolli"), "q :- .\n");
    assert_eq!(
        run(&dir, &["bad.lolli", "-e", "true"]),
        error(
            "error[E001]: syntax error: expected a term after `:-`, but found end of clause `.`\n  \
             ┌─ bad.lolli:1:6\n  \
             │\n\
             1 │ q :- .\n  \
             │      ^\n  \
             │\n  \
             = expected a term\n\n"
        )
    );
}

#[test]
fn the_library_loads_files_and_modules() {
    let dir = modules("library");
    let (mut s, _) = common::session_with(lolli::Options {
        search_path: vec![dir.to_path_buf()],
        ..lolli::Options::default()
    });
    s.load_file(dir.join("greet.ll")).expect("loads");
    assert_eq!(
        common::all_answers(&mut s, "hello X"),
        vec!["yes".to_string()]
    );
    // lib/ is not on this session's path.
    let mut q = s.query("util --o true").expect("parses");
    let e = q.next_answer().expect_err("util is not found");
    drop(q);
    assert_eq!(
        s.render(&[e]),
        format!(
            "error[E003]: module `util` not found\n \
             = while running the goal `util --o true`\n \
             = looked for `util.lolli` and `util.ll` in: {}\n\n",
            dir.display()
        )
    );
}
