//! Every built-in predicate: its result, its output and its resource
//! behaviour (a built-in consumes no linear resource).  Output is captured
//! through a small host; built-ins that touch the process (`cd`, `system`,
//! `top`/`pop`) run in the binary.

mod common;

use common::{answers, lolli, lolli_in, ok, session, temp_dir, write_file, Run};
use lolli::Options;
use pretty_assertions::assert_eq;

fn strs(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

/// The answers of `goal` and everything it wrote.
fn run(goal: &str) -> (Vec<String>, String) {
    let (mut s, cap) = session();
    let got = common::all_answers(&mut s, goal);
    let out = cap.out.borrow().clone();
    (got, out)
}

/// The rendered error a goal raises.
fn error_of(goal: &str) -> String {
    let (mut s, _) = session();
    let mut q = s.query(goal).expect("the goal parses");
    let e = loop {
        match q.next_answer() {
            Ok(Some(_)) => continue,
            Ok(None) => panic!("{goal:?} raised no error"),
            Err(e) => break e,
        }
    };
    drop(q);
    s.render(&[e])
}

// ------------------------------------------------------------------ output

#[test]
fn write_prints_terms_as_answers_print_them() {
    assert_eq!(
        run("write (f \"s\" (g a) 'A b' X (1 :: nil)), nl"),
        (
            strs(&["yes"]),
            "f \"s\" (g a) 'A b' _1 (1 :: nil)\n".to_string()
        )
    );
    assert_eq!(
        run("write (a - (b - c)), write \" \", write (a - b - c), nl"),
        (strs(&["yes"]), "a - (b - c)\" \"a - b - c\n".to_string())
    );
    assert_eq!(run("write (-3), nl").1, "-3\n");
    assert_eq!(run("write \"a\\\"b\\n\"").1, "\"a\\\"b\\n\"");
}

#[test]
fn write_renames_a_bound_name_that_would_capture_a_free_one() {
    assert_eq!(
        run("X = (forall y \\ f y Z), Z = y, write X, nl, write_raw X, nl").1,
        "forall y2 \\ f y2 y\n('forall' y2 (f y2 y))\n"
    );
    assert_eq!(
        run("X = (forall x \\ forall x \\ p x), write X, nl, write_raw X, nl").1,
        "forall x \\ forall x \\ p x\n('forall' x ('forall' x (p x)))\n"
    );
    assert_eq!(
        run("X = (forall y \\ forall y2 \\ f y y2 Z), Z = y, write_raw X").1,
        "('forall' y2 ('forall' y3 (f y2 y3 y)))"
    );
}

#[test]
fn write_quotes_a_bound_name_as_a_name_is_quoted() {
    assert_eq!(
        run("X = (forall 'my pred' \\ 'my pred' a), write X, nl, write_raw X, nl, write_sans X").1,
        "forall 'my pred' \\ 'my pred' a\n('forall' 'my pred' ('$apply' 'my pred' a))\nforall my pred \\ my pred a"
    );
    assert_eq!(
        run("X = (forall 'Abc' \\ f 'Abc'), write X, nl, write_raw X").1,
        "forall Abc \\ f Abc\n('forall' Abc (f Abc))"
    );
    assert_eq!(
        run("forall 'Abc' \\ (write 'Abc', nl, write_raw 'Abc', nl, write_sans 'Abc')").1,
        "'Abc_0'\n'Abc_0'\nAbc_0"
    );
}

#[test]
fn write_sans_drops_quotes() {
    assert_eq!(
        run("write_sans (f \"s\" 'A b' X), nl"),
        (strs(&["yes"]), "f s A b _1\n".to_string())
    );
    assert_eq!(run("write_sans \"hello world\"").1, "hello world");
}

#[test]
fn write_clause_ends_with_a_full_stop_and_newline() {
    assert_eq!(run("write_clause (p X :- q X, r)").1, "p _1 :- q _1, r.\n");
    assert_eq!(run("write_clause fact").1, "fact.\n");
}

#[test]
fn write_raw_prints_prefix_form() {
    assert_eq!(run("write_raw (a + b * c)").1, "('+' a ('*' b c))");
    assert_eq!(
        run("write_raw (p X :- q X, r (1 :: nil))").1,
        "(':-' (p _1) (',' (q _1) (r ('::' 1 nil))))"
    );
}

#[test]
fn output_happens_on_every_branch_tried() {
    // Output is not undone by backtracking.
    assert_eq!(
        run("(X = 1 ; X = 2), write X, nl, X > 1"),
        (strs(&["X = 2"]), "1\n2\n".to_string())
    );
}

#[test]
fn builtins_consume_no_resources() {
    assert_eq!(run("a -o (write hi, nl)"), (Vec::new(), "hi\n".to_string()));
    assert_eq!(
        run("a -o (write hi, a)"),
        (strs(&["yes"]), "hi".to_string())
    );
    assert_eq!(answers("", "a -o (X = 1, a)"), strs(&["X = 1"]));
    assert_eq!(answers("", "a -o X = 1"), Vec::<String>::new());
    assert_eq!(answers("", "a -o (var X, a)"), strs(&["yes"]));
}

// ------------------------------------------------------------------ files

#[test]
fn read_reads_terms_from_the_file_seeing_opens() {
    let dir = temp_dir("read");
    let file = dir.join("in.txt");
    write_file(&file, "foo (bar X) \"s\".\nnext\n  term.\n");
    let goal = format!("seeing \"{}\" (read A, read B, read C)", file.display());
    assert_eq!(
        answers("", &goal),
        strs(&["A = foo (bar _1) \"s\", B = next term, C = end_of_file"])
    );
}

#[test]
fn read_from_the_host_input() {
    let (mut s, cap) = session();
    cap.input
        .borrow_mut()
        .extend(["p (q 1).\n".to_string(), "r".to_string(), ".\n".to_string()]);
    assert_eq!(
        common::all_answers(&mut s, "read X, read Y, read Z"),
        strs(&["X = p (q 1), Y = r, Z = end_of_file"])
    );
}

#[test]
fn read_reads_one_term_and_leaves_the_rest_of_the_line() {
    // From the host's input: two terms on one line, then the end.
    let (mut s, cap) = session();
    cap.input.borrow_mut().push_back("a. b.\n".to_string());
    assert_eq!(
        common::all_answers(&mut s, "read X, read Y, read Z"),
        strs(&["X = a, Y = b, Z = end_of_file"])
    );
    // From a file: a term may span lines and end on a line another starts.
    let dir = temp_dir("read-rest");
    let file = dir.join("in.txt");
    write_file(&file, "foo (bar\n X). baz\n.");
    let goal = format!("seeing \"{}\" (read A, read B, read C)", file.display());
    assert_eq!(
        answers("", &goal),
        strs(&["A = foo (bar _1), B = baz, C = end_of_file"])
    );
    // A `.` in a string, a quoted name or a comment does not end a term;
    // input holding only a comment is the end.
    write_file(&file, "\"x. y\". 'q. r'. c % d. e\n. /* f. g */ h. % i.\n");
    let goal = format!(
        "seeing \"{}\" (read A, read B, read C, read D, read E)",
        file.display()
    );
    assert_eq!(
        answers("", &goal),
        strs(&["A = \"x. y\", B = 'q. r', C = c, D = h, E = end_of_file"])
    );
}

#[test]
fn read_on_the_command_line_reads_terms_sharing_a_line() {
    assert_eq!(
        common::lolli_in(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")),
            &["-e", "read X, read Y"],
            "a. b.\n",
            &[]
        ),
        ok("X = a, Y = b\n")
    );
}

#[test]
fn telling_sends_output_to_a_file() {
    let dir = temp_dir("telling");
    let file = dir.join("out.txt");
    let goal = format!(
        "telling \"{}\" (write hello, nl, write_clause (p :- q)), write back",
        file.display()
    );
    assert_eq!(run(&goal), (strs(&["yes"]), "back".to_string()));
    assert_eq!(
        std::fs::read_to_string(&file).expect("the file exists"),
        "hello\np :- q.\n"
    );
}

#[test]
fn telling_flushes_its_file_when_its_goal_ends() {
    let dir = temp_dir("telling-flush");
    let f = dir.join("o.txt");
    let f = f.display();
    // On success: the file is complete when the next goal reads it.
    assert_eq!(
        answers(
            "",
            &format!("telling \"{f}\" (write_clause x), seeing \"{f}\" (read T)")
        ),
        strs(&["T = x"])
    );
    // On failure of the goal.
    assert_eq!(
        answers(
            "",
            &format!("(telling \"{f}\" (write_clause y, fail) ; true), seeing \"{f}\" (read T)")
        ),
        strs(&["T = y"])
    );
    // On backtracking into the goal: it writes on, and is flushed again.
    assert_eq!(
        answers(
            "",
            &format!(
                "telling \"{f}\" (member X (a :: b :: nil), write_clause X), X = b, \
                 seeing \"{f}\" (read T1, read T2)"
            )
        ),
        strs(&["X = b, T1 = a, T2 = b"])
    );
    // Nested scopes left by one failure are both flushed.
    let g = dir.join("g.txt");
    let g = g.display();
    assert_eq!(
        answers(
            "",
            &format!(
                "(telling \"{f}\" (write_clause outer, telling \"{g}\" (write_clause inner, fail)) \
                 ; true), seeing \"{f}\" (read A), seeing \"{g}\" (read B)"
            )
        ),
        strs(&["A = outer, B = inner"])
    );
}

#[test]
fn telling_and_seeing_close_their_files_when_nothing_can_use_them() {
    // Thousands of `telling` and `seeing` scopes in one query, with no more
    // than 64 files open at a time: a scope whose goal left no choice point
    // closes its file, in a recursion and in a failure-driven loop alike.
    let dir = temp_dir("telling-close");
    write_file(
        &dir.join("t.lolli"),
        "MODULE t.\n\
         many 0.\n\
         many N :- N > 0, telling \"out.txt\" (write N), M is N - 1, many M.\n\
         loop N :- between 1 N I, telling \"out.txt\" (write I), fail.\n\
         loop _.\n\
         reads 0.\n\
         reads N :- N > 0, seeing \"out.txt\" (read 3000), M is N - 1, reads M.\n",
    );
    for goal in ["many 3000, loop 3000", "reads 3000"] {
        let out = std::process::Command::new("sh")
            .current_dir(&dir)
            .arg("-c")
            .arg(format!("ulimit -n 64 && exec \"$0\" t.lolli -e '{goal}'"))
            .arg(env!("CARGO_BIN_EXE_lolli"))
            .output()
            .expect("sh runs");
        assert_eq!(
            (
                String::from_utf8_lossy(&out.stdout).as_ref(),
                out.status.code()
            ),
            ("yes\n", Some(0)),
            "`{goal}`: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    assert_eq!(
        std::fs::read_to_string(dir.join("out.txt")).expect("out.txt"),
        "3000"
    );
}

#[test]
fn seeing_a_missing_file_is_an_error() {
    assert_eq!(
        error_of("seeing \"/nonexistent/lolli/in.txt\" true"),
        "error[E003]: cannot open `/nonexistent/lolli/in.txt` for reading: \
         No such file or directory (os error 2)\n \
         = while running the goal `seeing \"/nonexistent/lolli/in.txt\" true`\n\n"
    );
    assert_eq!(
        error_of("seeing infile true"),
        "error[E003]: the file name must be a string, not `infile`\n \
         = while running the goal `seeing infile true`\n \
         = write it in double quotes, like \"out.txt\"\n\n"
    );
}

#[test]
fn a_telling_file_that_cannot_be_written_is_an_error() {
    // Write errors were ignored before: `telling "/dev/full" (write a, nl)`
    // answered `yes` and the output was lost.
    if !std::path::Path::new("/dev/full").exists() {
        return;
    }
    // Flushing when the goal succeeds.
    assert_eq!(
        error_of("telling \"/dev/full\" (write a, nl)"),
        "error[E003]: cannot write to `/dev/full`: No space left on device (os error 28)\n \
         = while running the goal `telling \"/dev/full\" (write a, nl)`\n\n"
    );
    // Flushing when the goal fails.
    assert_eq!(
        error_of("telling \"/dev/full\" (write a, fail) ; true"),
        "error[E003]: cannot write to `/dev/full`: No space left on device (os error 28)\n \
         = the output of a `telling` goal that failed could not be written\n\n"
    );
    // A write that fills the buffer.
    assert_eq!(
        error_of("telling \"/dev/full\" (between 1 100000 X, write X, nl, X > 99999)"),
        "error[E003]: cannot write to `/dev/full`: No space left on device (os error 28)\n \
         = while running the goal `nl`\n\n"
    );
    // From the command line: exit status 2.
    let r = lolli(&["-e", "telling \"/dev/full\" (write a, nl)"]);
    assert_eq!((r.stdout.as_str(), r.code), ("", 2));
    assert!(r
        .stderr
        .starts_with("error[E003]: cannot write to `/dev/full`"));
}

#[test]
fn seeing_a_directory_or_reading_what_is_not_text_is_an_error() {
    let dir = temp_dir("seeing");
    let shown = dir.display().to_string();
    assert_eq!(
        error_of(&format!("seeing \"{shown}\" (read X)")),
        format!(
            "error[E003]: cannot open `{shown}` for reading: it is a directory\n \
             = while running the goal `seeing \"{shown}\" (read X)`\n\n"
        )
    );
    // A read error was taken for the end of the input before.
    let file = dir.join("latin1.txt");
    std::fs::write(&file, b"f \xe9t\xe9.\n").expect("writable");
    assert_eq!(
        error_of(&format!("seeing \"{}\" (read X)", file.display())),
        "error[E003]: `read` cannot read its input: stream did not contain valid UTF-8\n \
         = while running the goal `read X`\n\n"
    );
}

/// Run the binary with `args`, standard input the bytes `stdin`.
fn lolli_bytes(args: &[&str], stdin: &[u8]) -> Run {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let mut child = Command::new(env!("CARGO_BIN_EXE_lolli"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the lolli binary runs");
    let mut input = child.stdin.take().expect("stdin is piped");
    let bytes = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = input.write_all(&bytes);
    });
    let out = child.wait_with_output().expect("lolli finishes");
    let _ = writer.join();
    Run {
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        code: out.status.code().unwrap_or(-1),
    }
}

#[test]
fn standard_input_that_is_not_text_is_an_error() {
    // It was taken for the end of the input: `X = end_of_file`, and the
    // piped top level stopped with status 0, dropping the goals after it.
    assert_eq!(
        lolli_bytes(&["-e", "read X"], b"\xff.\n"),
        Run {
            stdout: String::new(),
            stderr:
                "error[E003]: `read` cannot read its input: stream did not contain valid UTF-8\n \
                     = while running the goal `read X`\n\n"
                    .to_string(),
            code: 2,
        }
    );
    assert_eq!(
        lolli_bytes(&[], b"X = 1.\nX = \xff.\nX = 2.\n"),
        Run {
            stdout: "X = 1\n".to_string(),
            stderr:
                "error[E002]: cannot read standard input: stream did not contain valid UTF-8\n\n"
                    .to_string(),
            code: 2,
        }
    );
}

#[test]
fn read_of_a_term_over_many_lines() {
    // Lexed once, not once per line (200,000 lines took minutes); the
    // generous --timeout turns a relapse into a failure.
    let text = format!("f {}.\n", "y\n".repeat(200_000));
    let r = lolli_bytes(&["--timeout", "60", "-e", "read X"], text.as_bytes());
    assert_eq!((r.stderr.as_str(), r.code), ("", 0));
    assert_eq!(r.stdout, format!("X = f{}\n", " y".repeat(200_000)));
    // The same goal piped to the top level.
    let goal = format!("X = f {}.\n", "y\n".repeat(200_000));
    let r = lolli_bytes(&["--timeout", "60"], goal.as_bytes());
    assert_eq!((r.stderr.as_str(), r.code), ("", 0));
    assert_eq!(r.stdout, format!("X = f{}\n", " y".repeat(200_000)));
}

#[test]
fn read_of_input_that_never_ends_a_term_meets_the_limits() {
    // `read` gathered such input without end, past every limit.
    if !std::path::Path::new("/dev/zero").exists() {
        return;
    }
    let r = lolli(&["--max-memory", "20", "-e", "seeing \"/dev/zero\" (read X)"]);
    assert_eq!((r.stdout.as_str(), r.code), ("", 2));
    assert!(
        r.stderr.starts_with(
            "error[E003]: memory limit exceeded: the search uses more than 20 MB\n \
             = while running the goal `read X`\n"
        ),
        "{}",
        r.stderr
    );
    let r = lolli(&[
        "--timeout",
        "1",
        "--max-memory",
        "0",
        "-e",
        "seeing \"/dev/zero\" (read X)",
    ]);
    assert_eq!(
        (r.stdout.as_str(), r.stderr.as_str(), r.code),
        (
            "",
            "error[E003]: time limit exceeded\n \
             = while running the goal `read X`\n \
             = the query was stopped by --timeout\n\n",
            2
        )
    );
    // Endless lines on standard input (as from `yes`).
    use std::io::Write;
    use std::process::{Command, Stdio};
    let mut child = Command::new(env!("CARGO_BIN_EXE_lolli"))
        .args(["--timeout", "1", "-e", "read X"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the lolli binary runs");
    let mut input = child.stdin.take().expect("stdin is piped");
    let writer = std::thread::spawn(move || {
        let chunk = "y\n".repeat(4096);
        while input.write_all(chunk.as_bytes()).is_ok() {}
    });
    let out = child.wait_with_output().expect("lolli finishes");
    let _ = writer.join();
    assert_eq!(
        (
            String::from_utf8_lossy(&out.stderr).as_ref(),
            out.status.code()
        ),
        (
            "error[E003]: time limit exceeded\n \
             = while running the goal `read X`\n \
             = the query was stopped by --timeout\n\n",
            Some(2)
        )
    );
}

// ------------------------------------------------------------- arithmetic

#[test]
fn is_evaluates_with_two_precedence_levels() {
    assert_eq!(
        answers(
            "",
            "X is 7 / 2, Y is 7 - 2 - 1, Z is 2 + 3 * 4, W is (2 + 3) * 4"
        ),
        strs(&["X = 3, Y = 4, Z = 14, W = 20"])
    );
    assert_eq!(answers("", "X is 0 - 3"), strs(&["X = -3"]));
    assert_eq!(answers("", "X is -3 * 2"), strs(&["X = -6"]));
    assert_eq!(answers("", "X is (0 - 7) / 2"), strs(&["X = -3"]));
    assert_eq!(answers("", "3 is 1 + 2"), strs(&["yes"]));
    assert_eq!(answers("", "4 is 1 + 2"), Vec::<String>::new());
}

#[test]
fn comparisons() {
    assert_eq!(
        answers("", "3 < 4, 4 > 3, 3 =< 3, 3 >= 3, 3 =:= 1 + 2, 3 =\\= 4"),
        strs(&["yes"])
    );
    for g in ["3 < 3", "4 > 4", "4 =< 3", "3 >= 4", "3 =:= 4", "3 =\\= 3"] {
        assert_eq!(answers("", g), Vec::<String>::new(), "{g}");
    }
}

#[test]
fn arithmetic_errors() {
    assert_eq!(
        error_of("X is Y + 1"),
        "error[E003]: arithmetic on an unbound variable\n \
         = while running the goal `X is Y + 1`\n \
         = the variable must be bound to a number before it is evaluated\n\n"
    );
    assert_eq!(
        error_of("X is a + 1"),
        "error[E003]: `a` is not a number\n = while running the goal `X is a + 1`\n\n"
    );
    assert_eq!(
        error_of("X is 1 / 0"),
        "error[E003]: division by zero\n = while running the goal `X is 1 / 0`\n\n"
    );
    assert_eq!(
        error_of("X is 9223372036854775807 + 1"),
        "error[E003]: integer overflow\n \
         = while running the goal `X is 9223372036854775807 + 1`\n \
         = integers are 64-bit; the result does not fit\n\n"
    );
}

#[test]
fn arithmetic_at_any_depth() {
    // Shallow expressions are evaluated by recursion, deep ones (more than
    // 64 operations nested) with work stacks: the same values and the same
    // first error in left-to-right order, at every depth.
    let left = |n: usize, leaf: &str| format!("{leaf}{}", " + 1".repeat(n));
    let right = |n: usize, leaf: &str| format!("{}{leaf}{}", "1 + (".repeat(n), ")".repeat(n));
    for n in [3, 64, 65, 1000] {
        for e in [left(n, "1"), right(n, "1")] {
            assert_eq!(
                answers("", &format!("X is {e}")),
                strs(&[&format!("X = {}", n + 1)])
            );
        }
        for e in [left(n, "Y"), right(n, "Y")] {
            let err = error_of(&format!("X is {e}"));
            assert!(
                err.starts_with("error[E003]: arithmetic on an unbound variable\n"),
                "{n}: {err}"
            );
        }
        // `a` comes before the division by zero, left to right.
        let e = format!("({}) + 1 / 0", right(n, "a"));
        let err = error_of(&format!("X is {e}"));
        assert!(
            err.starts_with("error[E003]: `a` is not a number\n"),
            "{n}: {err}"
        );
        let e = format!("({}) + a", right(n, "1 / 0"));
        let err = error_of(&format!("X is {e}"));
        assert!(
            err.starts_with("error[E003]: division by zero\n"),
            "{n}: {err}"
        );
    }
}

// ----------------------------------------------------- terms and variables

#[test]
fn unify_var_nonvar() {
    assert_eq!(answers("", "X = f Y, Y = a"), strs(&["X = f a, Y = a"]));
    assert_eq!(answers("", "var X, nonvar a"), strs(&["yes"]));
    assert_eq!(answers("", "var a"), Vec::<String>::new());
    assert_eq!(answers("", "nonvar X"), Vec::<String>::new());
    assert_eq!(answers("", "X = a, nonvar X"), strs(&["X = a"]));
    assert_eq!(answers("", "var X, X = a, nonvar X"), strs(&["X = a"]));
}

#[test]
fn fail_has_no_proof() {
    assert_eq!(answers("", "fail"), Vec::<String>::new());
    assert_eq!(answers("", "write x, fail"), Vec::<String>::new());
}

#[test]
fn explode_both_ways() {
    assert_eq!(
        answers("", "explode \"abc\" L"),
        strs(&["L = a :: b :: c :: nil"])
    );
    assert_eq!(
        answers("", "explode S (h :: i :: nil)"),
        strs(&["S = \"hi\""])
    );
    assert_eq!(answers("", "explode \"\" L"), strs(&["L = nil"]));
    assert_eq!(
        answers("", "explode \"ab\" (a :: b :: nil)"),
        strs(&["yes"])
    );
    // Only names make a string; a `forall` constant prints like one.
    assert!(error_of("explode S (1 :: nil)")
        .starts_with("error[E003]: the list holds `1`, which is not a name"));
    assert!(error_of("forall x \\ explode S (x :: nil)").starts_with(
        "error[E003]: the list holds `x_0`, which is a constant made by `forall`, not a name"
    ));
}

#[test]
fn explode_words_both_ways() {
    assert_eq!(
        answers("", "explode_words \"hello big  world\" L"),
        strs(&["L = hello :: big :: world :: nil"])
    );
    assert_eq!(
        answers("", "explode_words S (a :: b :: nil)"),
        strs(&["S = \"a b\""])
    );
}

#[test]
fn generalize_quantifies_free_variables() {
    assert_eq!(
        answers("", "generalize (f X Y X) G"),
        strs(&["G = (forall X1 \\ forall X2 \\ f X1 X2 X1)"])
    );
    assert_eq!(answers("", "generalize (f a) G"), strs(&["G = f a"]));
    // The generalized clause can be assumed and used at two instances.
    assert_eq!(
        answers("", "generalize (p X) C, C => (p a, p b)"),
        strs(&["C = (forall X1 \\ p X1)"])
    );
}

#[test]
fn timing_gives_milliseconds_as_an_integer() {
    let (mut s, _) = session();
    let mut q = s.query("timing (X = 1 ; X = 2) T").expect("parses");
    let mut xs = Vec::new();
    while let Some(a) = q.next_answer().expect("no error") {
        assert_eq!(a.bindings.len(), 2);
        xs.push(a.bindings[0].clone());
        assert_eq!(a.bindings[1].0, "T");
        let ms: i64 = a.bindings[1].1.parse().expect("T is an integer");
        assert!(ms >= 0, "T = {ms}");
    }
    // The timed goal keeps its alternatives.
    assert_eq!(
        xs,
        vec![
            ("X".to_string(), "1".to_string()),
            ("X".to_string(), "2".to_string())
        ]
    );
}

// ------------------------------------------------ the process: cd, system

#[test]
fn cd_changes_the_directory_modules_are_found_in() {
    let dir = temp_dir("cd");
    write_file(&dir.join("sub/util.lolli"), "twice X (X :: X :: nil).\n");
    assert_eq!(
        lolli_in(&dir, &["-e", "cd \"sub\", util --o twice b L"], "", &[]),
        ok("L = b :: b :: nil\n")
    );
    let r = lolli_in(&dir, &["-e", "cd \"nowhere\""], "", &[]);
    assert_eq!((r.stdout.as_str(), r.code), ("", 2), "stderr: {}", r.stderr);
    assert!(
        r.stderr
            .starts_with("error[E003]: cannot change directory to `nowhere`: "),
        "{}",
        r.stderr
    );
}

#[test]
fn system_stops_at_the_timeout() {
    // `system` waited for its command whatever the limits said.  (`exec`:
    // killing the shell kills the command, which holds the output pipe.)
    let r = lolli(&[
        "--allow-system",
        "--timeout",
        "1",
        "-e",
        "system \"exec sleep 60\" S",
    ]);
    assert_eq!(
        r,
        Run {
            stdout: String::new(),
            stderr: "error[E003]: time limit exceeded\n \
                     = while running the goal `system \"exec sleep 60\" S`\n \
                     = the query was stopped by --timeout\n \
                     = the command `exec sleep 60` was killed\n\n"
                .to_string(),
            code: 2,
        }
    );
}

#[test]
fn system_is_refused_without_allow_system() {
    assert_eq!(
        lolli(&["-e", "system \"true\" S"]),
        Run {
            stdout: String::new(),
            stderr: "error[E003]: `system` is disabled\n \
                     = while running the goal `system \"true\" S`\n \
                     = run lolli with --allow-system to let programs run shell commands\n\n"
                .to_string(),
            code: 2,
        }
    );
}

#[test]
fn system_sees_what_telling_wrote() {
    let dir = temp_dir("telling-system");
    let f = dir.join("o.txt");
    let goal = format!(
        "telling \"{0}\" (write hello), system \"test -s '{0}'\" S",
        f.display()
    );
    assert_eq!(lolli(&["--allow-system", "-e", &goal]), ok("S = 0\n"));
}

#[test]
fn system_runs_with_allow_system() {
    assert_eq!(
        lolli(&["--allow-system", "-e", "system \"echo hi; exit 3\" S"]),
        ok("hi\nS = 3\n")
    );
    // The command's output comes after what the program printed before it
    // (standard output is a pipe here, written in blocks), and before what
    // it prints after.
    assert_eq!(
        lolli(&[
            "--allow-system",
            "-e",
            "write a, nl, system \"echo b\" _, write c, nl"
        ]),
        ok("a\nb\nc\nyes\n")
    );
    // Through the library: the option is the same switch.
    let options = Options {
        allow_system: true,
        ..Options::default()
    };
    let (mut s, _) = common::session_with(options);
    assert_eq!(
        common::all_answers(&mut s, "system \"exit 0\" S"),
        strs(&["S = 0"])
    );
}

// ------------------------------------------------ top levels: load, top, pop

#[test]
fn load_opens_a_nested_top_level_with_the_module() {
    let dir = temp_dir("load");
    write_file(&dir.join("facts.lolli"), "MODULE facts.\nf 1.\nf 2.\n");
    let run = lolli_in(&dir, &[], "load facts.\nf X.\npop.\nf X.\n", &[]);
    assert_eq!((run.stdout.as_str(), run.code), ("X = 1\nno\n", 0));
    // Back at the outermost level nothing defines `f`, and the goal is told
    // so (the one inside the nested level is not).
    assert_eq!(
        run.stderr.matches("warning[W002]").count(),
        1,
        "{}",
        run.stderr
    );
}

#[test]
fn top_and_pop_nest_contexts() {
    let dir = temp_dir("top");
    write_file(&dir.join("pq.lolli"), "p a.\np b.\n");
    assert_eq!(
        lolli_in(
            &dir,
            &["pq.lolli"],
            "p c => top.\np X.\np d => top.\np X.\npop.\np X.\npop.\np X.\n",
            &[]
        ),
        ok("X = c\nX = d\nX = c\nX = a\n")
    );
}

#[test]
fn popall_returns_to_the_outermost_level() {
    let dir = temp_dir("popall");
    let run = lolli_in(
        &dir,
        &[],
        "p 1 => top.\np 2 => top.\np X.\npopall.\np X.\n",
        &[],
    );
    assert_eq!((run.stdout.as_str(), run.code), ("X = 2\nno\n", 0));
    assert_eq!(
        run.stderr.matches("warning[W002]").count(),
        1,
        "{}",
        run.stderr
    );
}

#[test]
fn bye_and_exit_leave_the_interpreter() {
    let dir = temp_dir("bye");
    assert_eq!(
        lolli_in(&dir, &[], "X = 1.\nbye.\nX = 2.\n", &[]),
        ok("X = 1\n")
    );
    assert_eq!(lolli_in(&dir, &[], "exit.\nX = 2.\n", &[]), ok(""));
    // From a nested level too, and from a clause body.
    assert_eq!(
        lolli_in(&dir, &[], "top.\nX = 1.\nbye.\nX = 2.\n", &[]),
        ok("X = 1\n")
    );
    assert_eq!(
        lolli_in(&dir, &[], "write a, bye, write b.\nX = 2.\n", &[]),
        ok("a")
    );
}

/// `bye` in a `-e` goal (or typed at a nested level that goal opened)
/// leaves too: the later goals do not run, and the status is that of the
/// goals before it.
#[test]
fn bye_in_a_goal_given_with_e_runs_no_later_goal() {
    let dir = temp_dir("bye-e");
    let e = |goals: &[&str], stdin: &str| {
        let args: Vec<&str> = goals.iter().flat_map(|g| ["-e", *g]).collect();
        lolli_in(&dir, &args, stdin, &[])
    };
    assert_eq!(e(&["bye", "write x"], ""), ok(""));
    assert_eq!(e(&["write first, bye", "write second"], ""), ok("first"));
    assert_eq!(e(&["exit", "write x"], ""), ok(""));
    assert_eq!(
        e(
            &["top", "write second"],
            "write in_top.\nbye.\nwrite not_run.\n"
        ),
        ok("in_topyes\n")
    );
    let failed = e(&["fail", "bye", "write x"], "");
    assert_eq!((failed.stdout.as_str(), failed.code), ("no\n", 1));
    // `pop` and `abort` end only their goal.
    assert_eq!(e(&["abort", "write x"], "").stdout, "no\nxyes\n");
}

#[test]
fn abort_abandons_the_query() {
    let dir = temp_dir("abort");
    assert_eq!(
        lolli_in(&dir, &[], "write x, abort, write y.\nX = 1.\n", &[]),
        ok("xaborted\nX = 1\n")
    );
}
