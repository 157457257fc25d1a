//! The command line: `-e` goals, `--all`, `--limit`, `--count`, the answer
//! format, exit statuses, error messages, `--help`/`--version`, term
//! printing, and goals piped on standard input.

mod common;

use common::{lolli, lolli_in, ok, temp_dir, write_file, Run};
use pretty_assertions::assert_eq;

fn status(stdout: &str, code: i32) -> Run {
    Run {
        stdout: stdout.to_string(),
        stderr: String::new(),
        code,
    }
}

fn error(stderr: &str) -> Run {
    Run {
        stdout: String::new(),
        stderr: stderr.to_string(),
        code: 2,
    }
}

/// The first answer line of a goal, as `-e` prints it.
fn show(goal: &str) -> String {
    let r = lolli(&["-e", goal]);
    assert_eq!((r.stderr.as_str(), r.code), ("", 0), "{goal}");
    r.stdout.trim_end_matches('\n').to_string()
}

// ------------------------------------------------------------------ goals

#[test]
fn a_goal_may_be_written_with_the_query_prompt() {
    assert_eq!(lolli(&["-e", "?- X = f a."]), ok("X = f a\n"));
    // Piped to the top level, as in seed 004's transcript.
    let dir = temp_dir("prompt");
    write_file(
        &dir.join("board.lolli"),
        "MODULE board.\nLINEAR cell a.\ntake :- cell a.\n",
    );
    assert_eq!(
        lolli_in(&dir, &[], "?- board --o top.\n?- take.\n", &[]),
        ok("yes\n")
    );
}

#[test]
fn a_program_file_may_start_with_a_byte_order_mark() {
    // As saved by editors on Windows, with CRLF line ends; `--o` finds
    // the module by its name all the same.
    let dir = temp_dir("bom");
    write_file(
        &dir.join("marked.lolli"),
        "\u{feff}MODULE marked.\r\nLINEAR p a.\r\nq X :- p X.\r\n",
    );
    assert_eq!(
        lolli_in(&dir, &["marked.lolli", "-e", "q X"], "", &[]),
        ok("X = a\n")
    );
    assert_eq!(
        lolli_in(&dir, &["-e", "marked --o q X"], "", &[]),
        ok("X = a\n")
    );
    // A script piped to the top level, its first line a command.
    assert_eq!(
        lolli_in(&dir, &[], "\u{feff}:load marked.lolli\r\nq X.\r\n", &[]),
        ok("loaded marked.lolli\nX = a\n")
    );
}

#[test]
fn a_goal_with_no_variables_answers_yes_or_no() {
    assert_eq!(lolli(&["-e", "true"]), ok("yes\n"));
    assert_eq!(lolli(&["-e", "fail"]), status("no\n", 1));
    assert_eq!(lolli(&["-e", "X = _"]), ok("yes\n"));
}

#[test]
fn the_final_full_stop_is_optional() {
    assert_eq!(lolli(&["-e", "X = a."]), ok("X = a\n"));
    assert_eq!(lolli(&["-e", "X = a"]), ok("X = a\n"));
    assert_eq!(lolli(&["-e", "X = a . "]), ok("X = a\n"));
}

#[test]
fn e_is_repeatable_and_each_goal_starts_afresh() {
    let dir = temp_dir("repeat");
    write_file(&dir.join("tok.lolli"), "LINEAR tok.\n");
    assert_eq!(
        lolli_in(
            &dir,
            &["tok.lolli", "-e", "tok", "-e", "tok", "-e", "tok, tok"],
            "",
            &[]
        ),
        status("yes\nyes\nno\n", 1)
    );
    assert_eq!(
        lolli(&["-e", "X = 1", "-e", "fail", "-e", "Y = 2."]),
        status("X = 1\nno\nY = 2\n", 1)
    );
    assert_eq!(
        lolli(&["-e", "X = 1", "--eval", "Y = 2"]),
        ok("X = 1\nY = 2\n")
    );
}

#[test]
fn bindings_print_in_order_of_first_appearance() {
    assert_eq!(show("Y = 1, X = 2"), "Y = 1, X = 2");
    assert_eq!(show("p Y X -o p 1 2"), "Y = 1, X = 2");
    // Variables left unbound are omitted; one bound to another shows its name.
    assert_eq!(show("X = 1, Y = X, Z = W"), "X = 1, Y = 1, W = Z");
    assert_eq!(show("X = f Y"), "X = f Y");
    assert_eq!(show("X = f _"), "X = f _1");
    assert_eq!(show("X = f A B"), "X = f A B");
}

#[test]
fn count_records_no_proofs_it_would_not_print() {
    // `--count` prints no answer, so no proof: the proof is not even
    // recorded (it was, and recording took more than the memory limit).
    let big = "findall X (between 1 2000 X) L, length L N";
    for view in ["--proof", "--proof=json", "--moves=length"] {
        let args = ["--count", view, "--max-memory", "1", "-e", big];
        assert_eq!(lolli(&args), ok("1\n"), "{view}");
    }
    // `--check-proofs` still checks each proof counted; one too large to
    // build is an error, and the answer is not printed for all that.
    let g = "a -o a -o (a , a)";
    assert_eq!(lolli(&["--count", "--check-proofs", "-e", g]), ok("2\n"));
    let big = "findall X (between 1 6000 X) L";
    let run = lolli(&["--count", "--check-proofs", "--max-memory", "1", "-e", big]);
    assert_eq!((run.code, run.stdout.as_str()), (2, ""), "{}", run.stderr);
    assert!(run
        .stderr
        .starts_with("error[E003]: the proof of answer 1 is too large"));
}

#[test]
fn all_limit_and_count() {
    let g = "X = 1 ; X = 2 ; X = 3";
    assert_eq!(lolli(&["-e", g]), ok("X = 1\n"));
    assert_eq!(lolli(&["--all", "-e", g]), ok("X = 1\nX = 2\nX = 3\n"));
    assert_eq!(lolli(&["--limit", "2", "-e", g]), ok("X = 1\nX = 2\n"));
    assert_eq!(
        lolli(&["--limit", "5", "-e", g]),
        ok("X = 1\nX = 2\nX = 3\n")
    );
    assert_eq!(lolli(&["--count", "-e", g]), ok("3\n"));
    assert_eq!(lolli(&["--count", "-e", "fail"]), ok("0\n"));
    // `--limit` caps `--all` and `--count` as well.
    assert_eq!(
        lolli(&["--all", "--limit", "2", "-e", g]),
        ok("X = 1\nX = 2\n")
    );
    assert_eq!(lolli(&["--count", "--limit", "2", "-e", g]), ok("2\n"));
    assert_eq!(lolli(&["--count", "--limit", "9", "-e", g]), ok("3\n"));
    assert_eq!(lolli(&["--all", "-e", "fail"]), status("no\n", 1));
    assert_eq!(lolli(&["--all", "-e", "true ; true"]), ok("yes\nyes\n"));
    assert_eq!(
        lolli(&[
            "--count",
            "-e",
            "a -o a -o a -o (a , erase)",
            "-e",
            "a -o (a , a)"
        ]),
        ok("3\n0\n")
    );
}

// ------------------------------------------------------------ exit status

#[test]
fn syntax_errors_exit_2_with_the_message_on_stderr() {
    assert_eq!(
        lolli(&["-e", "bad ("]),
        error(
            "error[E001]: syntax error: unbalanced parenthesis: this `(` is never closed\n  \
             ┌─ <goal>:1:5\n  \
             │\n\
             1 │ bad (\n  \
             │     ^\n  \
             │\n  \
             = expected a term\n\n"
        )
    );
    // Goals before the bad one have run; none after it.
    let r = lolli(&["-e", "X = 1", "-e", "bad (", "-e", "Y = 2"]);
    assert_eq!((r.stdout.as_str(), r.code), ("X = 1\n", 2));
    assert!(
        r.stderr.starts_with("error[E001]: syntax error"),
        "{}",
        r.stderr
    );
}

#[test]
fn runtime_errors_exit_2() {
    assert_eq!(
        lolli(&["-e", "true", "-e", "X = a, Y"]),
        Run {
            stdout: "yes\n".to_string(),
            stderr: "error[E003]: an unbound variable was called as a goal\n \
                     = while running the goal `Y`\n \
                     = bind the variable to a formula before calling it\n\n"
                .to_string(),
            code: 2
        }
    );
    // `-->` is an ordinary predicate name, as in Lolli 0.94: with no clause
    // for it, the goal has no proof (and is told that nothing defines it).
    let run = lolli(&["-e", "a --> b"]);
    assert_eq!((run.stdout.as_str(), run.code), ("no\n", 1));
    assert!(
        run.stderr
            .starts_with("warning[W002]: `-->` is called with 2 arguments, but nothing defines it"),
        "{}",
        run.stderr
    );
    assert_eq!(lolli(&["-e", "(a --> b) => (a --> X)"]), ok("X = b\n"));
}

/// `--max-depth` counts the clause uses of the branch being proved: the
/// other branch of `;` (or of a guard) starts at the depth of the choice,
/// not at the depth where the first branch failed.
#[test]
fn max_depth_counts_the_branch_being_proved() {
    let dir = temp_dir("max-depth-branch");
    write_file(
        &dir.join("md.lolli"),
        "deep 0.\ndeep N :- N > 0, M is N - 1, deep M.\n\
         t :- (deep 40, fail ; deep 40).\n\
         g :- (deep 40, fail -> true | deep 40).\n",
    );
    let args = |goal| ["--max-depth", "60", "md.lolli", "-e", goal];
    assert_eq!(lolli_in(&dir, &args("t"), "", &[]), ok("yes\n"));
    assert_eq!(lolli_in(&dir, &args("g"), "", &[]), ok("yes\n"));
    let deeper = lolli_in(&dir, &args("deep 70"), "", &[]);
    assert_eq!(deeper.code, 2, "{deeper:?}");
}

#[test]
fn answers_print_terms_in_full_where_messages_cut_them_short() {
    let answer = show("findall X (between 1 1000 X) L, length L N, M = f (f (f (f (f (f (f (f (f (f (f (f (f (f (f (f (f (f (f (f (f (f z)))))))))))))))))))))");
    assert!(
        answer.contains(":: 999 :: 1000 :: nil, N = 1000, M = f (f "),
        "{answer}"
    );
    assert!(answer.ends_with(" z)))))))))))))))))))))") && !answer.contains("..."));
    let r = lolli(&["-e", "findall X (between 1 1000 X) L, X is L"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.len() < 600, "{}", r.stderr);
    assert!(r.stderr.contains(" :: 34 :: ...`\n"), "{}", r.stderr);
}

#[test]
fn the_forall_escape_example_of_language_section_4() {
    // LANGUAGE.md section 4: the parenthesised alternative answers `X = f c`.
    assert_eq!(
        show("forall x \\ exists Y \\ (X = f Y , (Y = x ; Y = c))"),
        "X = f c"
    );
    let r = lolli(&["-e", "forall x \\ exists Y \\ (X = f Y , Y = x)"]);
    assert_eq!((r.stdout.as_str(), r.code), ("no\n", 1));
}

#[test]
fn bad_options_exit_2() {
    let r = lolli(&["--limit", "x", "-e", "true"]);
    assert_eq!((r.stdout.as_str(), r.code), ("", 2));
    assert!(
        r.stderr
            .starts_with("error: invalid value 'x' for '--limit <N>'"),
        "{}",
        r.stderr
    );
    // A timeout is a number of seconds the clock can count to.
    for (t, why) in [
        ("nan", "the timeout must be a number of seconds, 0 or more"),
        ("inf", "the timeout is too long"),
        ("1e300", "the timeout is too long"),
    ] {
        let r = lolli(&["--timeout", t, "-e", "true"]);
        assert_eq!((r.stdout.as_str(), r.code), ("", 2));
        assert!(
            r.stderr.starts_with(&format!(
                "error: invalid value '{t}' for '--timeout <SECONDS>': {why}"
            )),
            "{}",
            r.stderr
        );
    }
    assert_eq!(lolli(&["--timeout", "1e10", "-e", "true"]), ok("yes\n"));
    let r = lolli(&["--limit", "0", "-e", "true"]);
    assert_eq!((r.stdout.as_str(), r.code), ("", 2));
    assert!(
        r.stderr.starts_with(
            "error: invalid value '0' for '--limit <N>': the limit must be at least 1"
        ),
        "{}",
        r.stderr
    );
    for n in ["0", "1"] {
        let r = lolli(&["--memo-limit", n, "-e", "true"]);
        assert_eq!((r.stdout.as_str(), r.code), ("", 2));
        assert!(
            r.stderr.starts_with(&format!(
                "error: invalid value '{n}' for '--memo-limit <N>': the memo table holds at least 2 keys"
            )),
            "{}",
            r.stderr
        );
    }
    // A negative number is a value the option refuses (it used to be taken
    // for an unknown option, with clap's tip to write `-- -1`).
    for (opt, why) in [
        (
            "--timeout",
            "the timeout must be a number of seconds, 0 or more",
        ),
        ("--limit", "the limit must be at least 1"),
        ("--memo-limit", "the memo table holds at least 2 keys"),
        ("--max-depth", "the depth limit must be 0 or more"),
        (
            "--max-memory",
            "the memory limit must be 0 (no limit) or more megabytes",
        ),
    ] {
        let r = lolli(&[opt, "-1", "-e", "true"]);
        assert_eq!((r.stdout.as_str(), r.code), ("", 2));
        assert!(
            r.stderr.starts_with("error: invalid value '-1' for '")
                && r.stderr.contains(&format!("': {why}\n")),
            "{opt}: {}",
            r.stderr
        );
    }
    let r = lolli(&["--max-depth", "99999999999", "-e", "true"]);
    assert!(
        r.stderr.contains("': 99999999999 is too large\n"),
        "{}",
        r.stderr
    );
    let r = lolli(&["--bogus"]);
    assert_eq!((r.stdout.as_str(), r.code), ("", 2));
    assert!(
        r.stderr.starts_with("error: unexpected argument '--bogus'"),
        "{}",
        r.stderr
    );
    // A goal may start with `-` (tester-s13: `-e '-1 < 0'` was taken for
    // an option, with clap's tip to write `-- -1`, which reads a file).
    for (goal, out, code) in [
        ("-1 < 0", "yes\n", 0),
        ("-1 > 0", "no\n", 1),
        ("-2 = X", "X = -2\n", 0),
    ] {
        let r = lolli(&["-e", goal]);
        assert_eq!(
            (r.stdout.as_str(), r.code),
            (out, code),
            "{goal}: {}",
            r.stderr
        );
    }
}

#[test]
fn help_lists_every_option() {
    let r = lolli(&["--help"]);
    assert_eq!((r.stderr.as_str(), r.code), ("", 0));
    assert!(
        r.stdout.contains("Usage: lolli [OPTIONS] [FILES]..."),
        "{}",
        r.stdout
    );
    for opt in [
        "-e, --eval <GOAL>",
        "--all",
        "--limit <N>",
        "--count",
        "-I <DIR>",
        "--allow-system",
        "--help",
        "--version",
    ] {
        assert!(
            r.stdout.contains(opt),
            "--help does not mention {opt}:\n{}",
            r.stdout
        );
    }
}

#[test]
fn version() {
    assert_eq!(
        lolli(&["--version"]),
        ok(&format!("lolli {}\n", env!("CARGO_PKG_VERSION")))
    );
}

// --------------------------------------------------------------- printing

#[test]
fn terms_print_with_minimal_parentheses() {
    // A binding's value is parenthesized when its operator binds looser
    // than `=`, so that an answer line reads back as a goal.
    let cases = [
        ("X = f (g a) (b :: c :: nil)", "X = f (g a) (b :: c :: nil)"),
        ("X = (a :: b) :: c", "X = (a :: b) :: c"),
        ("X = (f a) b", "X = f a b"),
        ("F = f, X = F a b", "F = f, X = f a b"),
        ("X = a + b * c", "X = a + b * c"),
        ("X = (a + b) * c", "X = (a + b) * c"),
        ("X = f (a + b)", "X = f (a + b)"),
        ("X = 2 - 3 - 4", "X = 2 - 3 - 4"),
        ("X = 2 - (3 - 4)", "X = 2 - (3 - 4)"),
        ("X = (a -o b -o c)", "X = (a -o b -o c)"),
        ("X = ((a -o b) -o c)", "X = ((a -o b) -o c)"),
        ("X = (a & b & c)", "X = (a & b & c)"),
        ("X = ((a & b) & c)", "X = ((a & b) & c)"),
        ("X = (a ; b , c)", "X = (a ; b, c)"),
        ("X = ((a ; b) , c)", "X = ((a ; b), c)"),
        ("X = (p Y :- q)", "X = (p Y :- q)"),
        ("X = {a , b}", "X = {a, b}"),
        ("X = (a -> b | c)", "X = (a -> b | c)"),
        ("X = (forall x \\ p x)", "X = (forall x \\ p x)"),
        ("X = f (forall x \\ p x)", "X = f (forall x \\ p x)"),
        ("X = (M --o G)", "X = (M --o G)"),
        ("X = (a = b)", "X = (a = b)"),
    ];
    let got: Vec<(&str, String)> = cases.iter().map(|(g, _)| (*g, show(g))).collect();
    let want: Vec<(&str, String)> = cases.iter().map(|(g, w)| (*g, w.to_string())).collect();
    assert_eq!(got, want);
}

#[test]
fn names_strings_and_numbers_print_as_they_are_written() {
    let cases = [
        ("X = 'hello world'", "X = 'hello world'"),
        ("X = 'Abc'", "X = 'Abc'"),
        ("X = 'abc'", "X = abc"),
        ("X = 'it\\'s'", "X = 'it\\'s'"),
        ("X = '-o'", "X = '-o'"),
        ("X = f ''", "X = f ''"),
        ("X = \"a b\"", "X = \"a b\""),
        ("X = f \"x\\ty\"", "X = f \"x\\ty\""),
        ("X = -3", "X = -3"),
        ("X = f (-3)", "X = f (-3)"),
        ("X = 1 - -3", "X = 1 - -3"),
        ("X is 0 - 3", "X = -3"),
        ("X = 0", "X = 0"),
        // Non-ASCII: unquoted exactly when the lexer reads them as names.
        ("X = '日本'", "X = 日本"),
        ("X = é", "X = é"),
        ("X = f 'É'", "X = f 'É'"),
        ("X = 'aé_1'", "X = aé_1"),
    ];
    let got: Vec<(&str, String)> = cases.iter().map(|(g, _)| (*g, show(g))).collect();
    let want: Vec<(&str, String)> = cases.iter().map(|(g, w)| (*g, w.to_string())).collect();
    assert_eq!(got, want);
}

#[test]
fn a_comma_value_is_parenthesized_in_an_answer() {
    // `X = a, b, Y = c` cannot be told apart from three bindings.
    assert_eq!(show("X = (a , b), Y = c"), "X = (a, b), Y = c");
}

#[test]
fn answers_through_the_library_print_the_same() {
    let (mut s, _) = common::session();
    let mut q = s
        .query("X = f (g a) (b :: nil), Y = 'hello world'")
        .expect("parses");
    let a = q.next_answer().expect("no error").expect("an answer");
    assert_eq!(
        a.bindings,
        vec![
            ("X".to_string(), "f (g a) (b :: nil)".to_string()),
            ("Y".to_string(), "'hello world'".to_string())
        ]
    );
    assert_eq!(a.to_string(), "X = f (g a) (b :: nil), Y = 'hello world'");
    assert_eq!(q.next_answer().expect("no error"), None);
}

// ------------------------------------------------------------ piped input

#[test]
fn goals_piped_on_stdin_answer_one_each() {
    let dir = temp_dir("piped");
    write_file(&dir.join("pq.lolli"), "p a.\np b.\nq X :- p X.\n");
    assert_eq!(
        lolli_in(
            &dir,
            &["pq.lolli"],
            "q X.\np c => q X.\n\nfail.\nX = 1 ;\n  X = 2.\n",
            &[]
        ),
        ok("X = a\nX = c\nno\nX = 1\n")
    );
    // --all prints every answer of each goal.
    assert_eq!(
        lolli_in(&dir, &["--all", "pq.lolli"], "q X.\n", &[]),
        ok("X = a\nX = b\n")
    );
}

#[test]
fn a_syntax_error_on_stdin_stops_with_status_2() {
    let dir = temp_dir("piped-error");
    let r = lolli_in(&dir, &[], "X = 1.\nbad ( .\nY = 2.\n", &[]);
    assert_eq!((r.stdout.as_str(), r.code), ("X = 1\n", 2));
    assert!(
        r.stderr
            .starts_with("error[E001]: syntax error: unbalanced parenthesis"),
        "{}",
        r.stderr
    );
    // The position is the error's in the input: its line, and its column
    // counted from the start of the line, after blank lines, after another
    // goal on the same line, and in a goal that spans lines.
    for (input, at) in [
        ("X = 1.\nbad ( .\n", "<stdin>:2:5"),
        (
            "X = 1.\n\n\n  Y = 2.  Z = (3 +\n  4), W = ).\n",
            "<stdin>:5:11",
        ),
        ("X = 1. Y = (.\n", "<stdin>:1:12"),
    ] {
        let r = lolli_in(&dir, &[], input, &[]);
        assert_eq!(r.code, 2);
        assert!(
            r.stderr.contains(&format!("┌─ {at}\n")),
            "{input:?}: {}",
            r.stderr
        );
    }
    // A warning about a piped goal too.
    let r = lolli_in(&dir, &[], "true.\n  nothing_defines_this.\n", &[]);
    assert!(r.stderr.contains("┌─ <stdin>:2:3\n"), "{}", r.stderr);
}

#[test]
fn piped_input_at_end_of_file_exits_0() {
    let dir = temp_dir("piped-eof");
    assert_eq!(lolli_in(&dir, &[], "", &[]), ok(""));
    assert_eq!(lolli_in(&dir, &[], "fail.\n", &[]), ok("no\n"));
    // Comments after the last goal, or nothing but comments, are not a
    // goal (tester-s12 finding 4: "nothing to read", status 2).
    for input in [
        "X = 1.\n% the end\n",
        "X = 1.\n/* the end */\n",
        "X = 1.\n% the end",
        "X = 1. % the end\n",
    ] {
        assert_eq!(lolli_in(&dir, &[], input, &[]), ok("X = 1\n"), "{input:?}");
    }
    assert_eq!(lolli_in(&dir, &[], "% only a comment\n", &[]), ok(""));
    // An unclosed comment is still an error.
    assert_eq!(lolli_in(&dir, &[], "X = 1.\n/* open\n", &[]).code, 2);
}

#[test]
fn an_e_goal_that_calls_top_ends_silently_at_the_end_of_input() {
    // The nested level reads standard input; its end ends the level as
    // `pop` does: the rest of the goal never runs, no answer and no `no`,
    // status 0 (README, `-e`; LANGUAGE.md section 8).
    let dir = temp_dir("e-top-eof");
    let goal = ["-e", "top, write x, nl"];
    assert_eq!(lolli_in(&dir, &goal, "", &[]), ok(""));
    assert_eq!(lolli_in(&dir, &goal, "fail.\n", &[]), ok("no\n"));
    assert_eq!(lolli_in(&dir, &goal, "pop.\n", &[]), ok(""));
    // The next `-e` goal still runs.
    let goals = ["-e", "top, write x, nl", "-e", "write y, nl"];
    assert_eq!(lolli_in(&dir, &goals, "", &[]), ok("y\nyes\n"));
}

#[test]
fn stats_follow_each_piped_goal_on_stderr() {
    // tester-s12 finding 3: `--stats` printed nothing at a top level.
    let dir = temp_dir("piped-stats");
    let r = lolli_in(
        &dir,
        &["--stats"],
        "X = 1.\nfail.\nlength L 2, erase.\n",
        &[],
    );
    assert_eq!(r.code, 0);
    assert_eq!(r.stdout, "X = 1\nno\nL = _1 :: _2 :: nil\n");
    let figures: Vec<&str> = r.stderr.lines().collect();
    assert_eq!(figures.len(), 9, "{}", r.stderr);
    for (i, lines) in figures.chunks(3).enumerate() {
        assert!(
            lines[0].starts_with("% ") && lines[0].contains(" in "),
            "{i}: {lines:?}"
        );
        assert!(
            lines[1].starts_with("% garbage collected: "),
            "{i}: {lines:?}"
        );
        assert_eq!(lines[2], "% memo table:        off", "{i}");
    }
    // `length L 2` takes inferences; `X = 1` one.
    assert_eq!(figures[0].split(' ').nth(1), Some("1"));
    assert_ne!(figures[6].split(' ').nth(1), Some("0"));
}

/// Run the binary with `args` (and `stdin`), read the first `n` lines of its
/// output, then close the pipe; the process must then end by itself.
fn first_lines_then_close(args: &[&str], stdin: &str, n: usize) -> Vec<String> {
    use std::io::{BufRead, BufReader, Write};
    use std::process::{Command, Stdio};
    let dir = temp_dir("endless");
    write_file(
        &dir.join("nat.lolli"),
        "nat z.\nnat (s N) :- nat N.\n\
         slow X :- nat X, count (between 1 2000000 _) _.\n\
         loop :- write x, nl, loop.\n",
    );
    let mut child = Command::new(env!("CARGO_BIN_EXE_lolli"))
        .current_dir(&dir)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the lolli binary runs");
    let mut input = child.stdin.take().expect("stdin is piped");
    input
        .write_all(stdin.as_bytes())
        .expect("stdin accepts the goal");
    drop(input);
    let out = child.stdout.take().expect("stdout is piped");
    let lines: Vec<String> = BufReader::new(out)
        .lines()
        .take(n)
        .map(|l| l.expect("a line"))
        .collect();
    // The reader is gone (the pipe was dropped with the BufReader).
    let started = std::time::Instant::now();
    loop {
        if child.try_wait().expect("wait").is_some() {
            break;
        }
        if started.elapsed() > std::time::Duration::from_secs(20) {
            let _ = child.kill();
            panic!("lolli {args:?} went on after its reader closed the pipe");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    lines
}

#[test]
fn answers_are_printed_as_they_are_found() {
    // A goal with endless answers: its first answers reach the reader while
    // the search goes on, and closing the pipe stops it (before, --all
    // gathered every answer in memory and printed nothing).
    let expected = ["X = z", "X = s z", "X = s (s z)"];
    assert_eq!(
        first_lines_then_close(&["nat.lolli", "--all", "-e", "nat X"], "", 3),
        expected
    );
    assert_eq!(
        first_lines_then_close(&["nat.lolli", "--all"], "nat X.\n", 3),
        expected
    );
    // With a limit the same goal ends, as before.
    let dir = temp_dir("endless-limit");
    write_file(&dir.join("nat.lolli"), "nat z.\nnat (s N) :- nat N.\n");
    assert_eq!(
        lolli_in(
            &dir,
            &["nat.lolli", "--limit", "2", "-e", "nat X", "-e", "fail"],
            "",
            &[]
        ),
        Run {
            stdout: "X = z\nX = s z\nno\n".into(),
            stderr: String::new(),
            code: 1
        }
    );
}

#[test]
fn a_closed_pipe_stops_a_search_whose_answers_come_slowly() {
    // Each answer of `slow X` takes a count of two million proofs, more
    // than the 50 ms output may wait: the closed pipe was met only by the
    // periodic flush, which dropped the error, and the search went on for
    // ever.  (The helper fails if the process does not end by itself.)
    assert_eq!(
        first_lines_then_close(&["nat.lolli", "--all", "-e", "slow X"], "", 1),
        ["X = z"]
    );
    assert_eq!(
        first_lines_then_close(&["nat.lolli", "--all"], "slow X.\n", 1),
        ["X = z"]
    );
}

#[test]
fn a_closed_pipe_stops_a_goal_that_only_prints() {
    // `loop` never answers: only the search's own check of the output
    // can stop it (it printed into the failed buffer for ever).
    assert_eq!(
        first_lines_then_close(&["nat.lolli", "-e", "loop"], "", 1),
        ["x"]
    );
    assert_eq!(first_lines_then_close(&["nat.lolli"], "loop.\n", 1), ["x"]);
}

#[test]
fn standard_output_that_cannot_be_written_is_an_error() {
    // `lolli -e 'write a' > /dev/full` exited 0 without a word.
    use std::process::{Command, Stdio};
    let Ok(full) = std::fs::OpenOptions::new().write(true).open("/dev/full") else {
        return;
    };
    let out = Command::new(env!("CARGO_BIN_EXE_lolli"))
        .args(["-e", "write a"])
        .stdin(Stdio::null())
        .stdout(full)
        .output()
        .expect("the lolli binary runs");
    assert_eq!(
        (
            String::from_utf8_lossy(&out.stderr).as_ref(),
            out.status.code()
        ),
        (
            "error: cannot write to standard output: No space left on device (os error 28)\n",
            Some(2)
        )
    );
}

#[test]
fn output_to_a_pipe_arrives_while_the_search_goes_on() {
    // Output to a pipe is written in blocks, but never held back for long:
    // the line printed before a search of minutes reaches the reader while
    // that search runs.
    use std::io::{BufRead, BufReader};
    use std::process::{Command, Stdio};
    let dir = temp_dir("pipe-output");
    write_file(
        &dir.join("slow.lolli"),
        "go :- write first, nl, between 1 1000000000 X, X < 0.\n",
    );
    let mut child = Command::new(env!("CARGO_BIN_EXE_lolli"))
        .current_dir(&dir)
        .args(["slow.lolli", "-e", "go"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the lolli binary runs");
    let out = child.stdout.take().expect("stdout is piped");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut line = String::new();
        let _ = BufReader::new(out).read_line(&mut line);
        let _ = tx.send(line);
    });
    let line = rx.recv_timeout(std::time::Duration::from_secs(20));
    let running = child.try_wait().expect("wait").is_none();
    let _ = child.kill();
    let _ = child.wait();
    assert_eq!(line.as_deref(), Ok("first\n"));
    assert!(running, "the line came only when the search ended");
}

#[test]
fn files_written_by_telling_are_complete_when_the_process_ends() {
    // The command line ends without tearing the session down; what
    // `telling` wrote must still reach the file, from `-e` and from goals
    // piped to the top level.
    let dir = temp_dir("telling_at_exit");
    let r = lolli_in(
        &dir,
        &[
            "-e",
            r#"telling "e.txt" (write (f a), nl, write_sans "done", nl)"#,
        ],
        "",
        &[],
    );
    assert_eq!(r, ok("yes\n"));
    assert_eq!(
        std::fs::read_to_string(dir.join("e.txt")).unwrap(),
        "f a\ndone\n"
    );
    let r = lolli_in(&dir, &[], "telling \"p.txt\" (write 1, nl).\n", &[]);
    assert_eq!(r, ok("yes\n"));
    assert_eq!(std::fs::read_to_string(dir.join("p.txt")).unwrap(), "1\n");
}

#[test]
fn a_program_may_be_any_readable_file_that_is_not_a_directory() {
    assert_eq!(lolli(&["/dev/null", "-e", "true"]), ok("yes\n"));
    // A FIFO, as `lolli <(echo 'p.') -e p` gives, is read to its end.
    let dir = temp_dir("fifo_program");
    let fifo = dir.join("ff.lolli");
    let _ = std::fs::remove_file(&fifo);
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    if made.is_ok_and(|s| s.success()) {
        let writer = {
            let fifo = fifo.clone();
            std::thread::spawn(move || std::fs::write(&fifo, "p.\n"))
        };
        assert_eq!(
            lolli_in(&dir, &["ff.lolli", "-e", "p"], "", &[]),
            ok("yes\n")
        );
        writer.join().unwrap().unwrap();
    }
}

#[test]
fn a_missing_file_hint_names_only_a_near_file() {
    let dir = temp_dir("missing_hint");
    write_file(&dir.join("a1.lolli"), "p.\n");
    write_file(&dir.join("lists.lolli"), "p.\n");
    std::fs::create_dir_all(dir.join("dir.lolli")).unwrap();
    assert_eq!(
        lolli_in(&dir, &["dir.lolli", "-e", "true"], "", &[]),
        error("error[E002]: `dir.lolli` is a directory, not a program file\n\n")
    );
    let r = lolli_in(&dir, &["listz.lolli", "-e", "true"], "", &[]);
    assert!(
        r.stderr.contains("did you mean `lists.lolli`?"),
        "{}",
        r.stderr
    );
    let r = lolli_in(&dir, &["abc.lolli", "-e", "true"], "", &[]);
    assert!(!r.stderr.contains("did you mean"), "{}", r.stderr);
}
