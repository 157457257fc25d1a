//! The real binary at a pseudo-terminal: line editing, answers on demand,
//! nested top levels, Ctrl-C during a query, Ctrl-D, history; and the same
//! binary with a pipe for stdin.
//!
//! Expectations wait generously (the machine may be busy) and match output
//! the terminal does not echo back: the line editor echoes what is typed
//! (and redraws it with cursor moves such as `ESC[42C`), so every
//! expectation is text only the interpreter prints.  Input is sent only once
//! the editor shows its next prompt: keys typed while a query runs reach the
//! terminal in its cooked mode, which changes what some of them mean.

mod common;

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use common::{temp_dir, TempDir};
use expectrl::process::unix::WaitStatus;
use expectrl::{ControlCode, Eof, Expect, Session};
use pretty_assertions::assert_eq;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn spawn(args: &[&str], history: &Path) -> expectrl::session::OsSession {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_lolli"));
    cmd.args(args)
        .current_dir(root())
        .env("LOLLI_HISTORY", history)
        .env("TERM", "xterm")
        .env_remove("LOLLI_PATH");
    let mut s = Session::spawn(cmd).expect("spawn lolli on a pseudo-terminal");
    s.set_expect_timeout(Some(Duration::from_secs(60)));
    s
}

/// A session started by [`spawn`] with `args`, its history in a new
/// temporary directory named after `name`, at its first prompt.
fn start(name: &str, args: &[&str]) -> (TempDir, expectrl::session::OsSession) {
    let dir = temp_dir(name);
    let mut p = spawn(args, &dir.join("history"));
    p.expect("?- ").unwrap();
    (dir, p)
}

/// Leave a session at the outermost prompt with Ctrl-D.
fn leave(p: &mut expectrl::session::OsSession) {
    p.send(ControlCode::EndOfTransmission).unwrap();
    p.expect(Eof).unwrap();
}

#[test]
fn a_session_at_the_terminal() {
    let dir = temp_dir("session");
    let history = dir.join("history");
    let looping = dir.join("loop.lolli");
    std::fs::write(&looping, "loop :- loop.\n").unwrap();
    let mut p = spawn(&["-I", "programs", "programs/solitaire.lolli"], &history);
    p.expect("`:help` for help").unwrap();
    p.expect("?- ").unwrap();

    // Two answers with `;`, then Enter stops.
    p.send_line("jump N.").unwrap();
    p.expect("N = s (s (s (s (s (s (s (s (s (s z)))))))))")
        .unwrap();
    p.expect("more? ").unwrap();
    p.send(";").unwrap();
    p.expect("N = s (s (s (s (s (s (s (s (s z))))))))").unwrap();
    p.expect("more? ").unwrap();
    p.send("\r").unwrap();
    p.expect("?- ").unwrap();

    // A goal over two lines.
    p.send("jump\r").unwrap();
    p.expect("(the goal goes on until a `.`)").unwrap();
    p.send("(s z).\r").unwrap();
    p.expect("yes").unwrap();
    p.expect("?- ").unwrap();

    // Tab completes a command.
    p.send(":hel\t\r").unwrap();
    p.expect("Commands (aliases in brackets)").unwrap();
    p.expect("?- ").unwrap();

    // A nested top level; its pegs are there for each query; pop returns.
    p.send_line("solitaire2 --o top.").unwrap();
    p.expect("[nested top level 1").unwrap();
    p.expect("[1] ?- ").unwrap();
    p.send_line("jump (j J1 (j J2 f)).").unwrap();
    p.expect("J1 = ne (s (s (s (s z)))) (s z), J2 = sw (s (s z)) (s z)")
        .unwrap();
    p.expect("more? ").unwrap();
    p.send("\r").unwrap();
    p.expect("[1] ?- ").unwrap();
    p.send_line("pop.").unwrap();
    p.expect("[back at the outermost top level]").unwrap();
    p.expect("?- ").unwrap();

    // Ctrl-C interrupts a running query; the session goes on.
    p.send_line(format!(":load {}", looping.display())).unwrap();
    p.expect("loaded ").unwrap();
    p.expect("?- ").unwrap();
    p.send_line("X is 1234 * 5, write X, nl, loop.").unwrap();
    p.expect("6170\r\n").unwrap();
    p.send(ControlCode::EndOfText).unwrap();
    p.expect("interrupted").unwrap();
    p.expect("?- ").unwrap();
    p.send_line("jump (s (s z)).").unwrap();
    p.expect("yes").unwrap();
    p.expect("?- ").unwrap();

    // Ctrl-C at the prompt clears the line.
    // (The editor drops keys typed ahead of a Ctrl-C: wait for the new line.)
    p.send("jump (s (s (s").unwrap();
    p.send(ControlCode::EndOfText).unwrap();
    p.expect("\r\n").unwrap();
    p.expect("?- ").unwrap();
    p.send_line("jump z.").unwrap();
    p.expect("yes").unwrap();
    p.expect("?- ").unwrap();

    // Ctrl-D at the outermost level leaves.
    p.send(ControlCode::EndOfTransmission).unwrap();
    p.expect(Eof).unwrap();
    assert!(matches!(
        p.get_process().wait(),
        Ok(WaitStatus::Exited(_, 0))
    ));

    let saved = std::fs::read_to_string(&history).unwrap();
    for line in ["jump N.", "solitaire2 --o top.", "pop.", "jump z."] {
        assert!(
            saved.lines().any(|l| l == line),
            "{line:?} not in {saved:?}"
        );
    }
}

/// The error that a Ctrl-C gives starts its own line, not the line the
/// terminal echoed `^C` on (tester-s12 point 12: `^Cerror[E003]:
/// interrupted`).
#[test]
fn the_interrupt_message_starts_its_own_line() {
    // A terminal that echoes Ctrl-C as `^C`, as most do.
    let mut cmd = Command::new("sh");
    cmd.arg("-c")
        .arg(format!(
            "stty echo echoctl && exec '{}'",
            env!("CARGO_BIN_EXE_lolli")
        ))
        .current_dir(root())
        .env("LOLLI_HISTORY", "")
        .env("TERM", "xterm")
        .env_remove("LOLLI_PATH");
    let mut p = Session::spawn(cmd).expect("spawn lolli on a pseudo-terminal");
    p.set_expect_timeout(Some(Duration::from_secs(60)));
    p.expect("?- ").unwrap();
    p.send_line("between 1 1000000000000 X, fail.").unwrap();
    std::thread::sleep(std::time::Duration::from_millis(300));
    p.send(ControlCode::EndOfText).unwrap();
    let stopped = p.expect("interrupted").unwrap();
    let before = String::from_utf8_lossy(stopped.before()).to_string();
    assert!(before.ends_with("^C\r\nerror[E003]: "), "{before:?}");
    p.expect("?- ").unwrap();
    leave(&mut p);
}

/// `read` waiting at the terminal is stopped by Ctrl-C (at the top level)
/// and by `--timeout`, as a running search is; a line typed is read.
#[test]
fn read_at_the_terminal_stops_on_ctrl_c_and_timeout() {
    let dir = temp_dir("read");
    let history = dir.join("history");
    let mut p = spawn(&[], &history);
    p.expect("?- ").unwrap();
    p.send_line("write waiting, nl, read X.").unwrap();
    p.expect("waiting\r\n").unwrap();
    p.send(ControlCode::EndOfText).unwrap();
    p.expect("interrupted").unwrap();
    p.expect("?- ").unwrap();
    // While it waits, `read` says so (tester-s12 point 12: the top level
    // looked hung).  This terminal does not echo what is typed while a
    // query runs, so the answer starts a line after the prompt.
    p.send_line("write waiting, nl, read X.").unwrap();
    p.expect("waiting\r\n|: ").unwrap();
    p.send("f (hello).\r").unwrap();
    let answered = p.expect("X = f hello").unwrap();
    assert_eq!(String::from_utf8_lossy(answered.before()), "\r\n");
    p.expect("?- ").unwrap();
    p.send(ControlCode::EndOfTransmission).unwrap();
    p.expect(Eof).unwrap();

    let mut p = spawn(&["--timeout", "1", "-e", "read X"], &history);
    p.expect("time limit exceeded").unwrap();
    p.expect(Eof).unwrap();
    assert!(matches!(
        p.get_process().wait(),
        Ok(WaitStatus::Exited(_, 2))
    ));
}

/// Ctrl-C during `system` stops the query, also when the command dies of
/// the same Ctrl-C before `lolli` looks (tester-s12 finding 1: the answer
/// `S = -1`, and the goal went on).
#[test]
fn ctrl_c_during_system_stops_the_query() {
    let (_dir, mut p) = start("system", &["--allow-system"]);
    // A simple command: the shell runs it in its own place, so the
    // command gets the Ctrl-C itself.
    p.send_line("system \"sleep 30\" S, write after, nl.")
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(300));
    p.send(ControlCode::EndOfText).unwrap();
    let stopped = p.expect("interrupted").unwrap();
    // (The goal as typed is echoed before: "write after, nl.")
    assert!(!String::from_utf8_lossy(stopped.before()).contains("after\r\n"));
    p.expect("?- ").unwrap();
    p.send_line("X = 1.").unwrap();
    p.expect("X = 1").unwrap();
    p.expect("?- ").unwrap();
    leave(&mut p);
}

/// A goal typed at `more?` (instead of `;` or Enter) stops the answers and
/// runs (tester-s12 finding 9: its first space asked for the next answer,
/// and the line was lost); `;`, `n` and space as the first key still ask
/// for the next answer.
#[test]
fn a_goal_typed_at_more_runs() {
    let (_dir, mut p) = start("more", &[]);
    p.send_line("member X (a :: b :: c :: nil).").unwrap();
    p.expect("X = a").unwrap();
    p.expect("more?").unwrap();
    p.send_line("write typed, nl.").unwrap();
    let ran = p.expect("typed\r\n").unwrap();
    assert!(!String::from_utf8_lossy(ran.before()).contains("X = b"));
    p.expect("yes").unwrap();
    p.expect("?- ").unwrap();
    p.send_line("member X (a :: b :: c :: nil).").unwrap();
    p.expect("more?").unwrap();
    p.send(" ").unwrap();
    p.expect("X = b").unwrap();
    p.expect("more?").unwrap();
    p.send("n").unwrap();
    p.expect("X = c").unwrap();
    // Enter stops (whether or not `more?` is asked once more).
    p.send_line("").unwrap();
    p.expect("?- ").unwrap();
    leave(&mut p);
}

/// At the terminal an answer starts its own line after output that did not
/// end one (tester-s12: `write hello.` showed `helloyes`).
#[test]
fn answers_start_a_line_after_unfinished_output() {
    let (_dir, mut p) = start("line-start", &[]);
    p.send_line("write hello.").unwrap();
    p.expect("hello\r\nyes\r\n").unwrap();
    p.expect("?- ").unwrap();
    p.send_line("write hello, fail.").unwrap();
    p.expect("hello\r\nno\r\n").unwrap();
    p.expect("?- ").unwrap();
    p.send_line("write hello, nl.").unwrap();
    p.expect("hello\r\nyes\r\n").unwrap();
    p.expect("?- ").unwrap();
    leave(&mut p);
}

/// With standard output sent to a file, the line editor still talks to
/// the terminal, and the file gets the answers only (no prompts, no escape
/// codes); what the top level says itself (`:help`, `:context`, the notes
/// on nested levels) is shown at the terminal, not written to the file
/// (tester-s12 point 12).
#[test]
fn output_to_a_file_leaves_the_editing_at_the_terminal() {
    let dir = temp_dir("redirect");
    let out = dir.join("out.txt");
    let mut cmd = Command::new("sh");
    cmd.arg("-c")
        .arg(format!(
            "exec '{}' > '{}'",
            env!("CARGO_BIN_EXE_lolli"),
            out.display()
        ))
        .current_dir(root())
        .env("LOLLI_HISTORY", "")
        .env("TERM", "xterm")
        .env_remove("LOLLI_PATH");
    let mut p = Session::spawn(cmd).expect("spawn lolli on a pseudo-terminal");
    p.set_expect_timeout(Some(Duration::from_secs(60)));
    p.expect("`:help` for help").unwrap();
    p.expect("?- ").unwrap();
    p.send_line("write hello, nl, X = 1.").unwrap();
    p.expect("?- ").unwrap();
    p.send_line(":help").unwrap();
    p.expect("Commands (aliases in brackets)").unwrap();
    p.expect("?- ").unwrap();
    p.send_line("f a -o top.").unwrap();
    p.expect("[nested top level 1").unwrap();
    p.expect("[1] ?- ").unwrap();
    p.send_line(":context").unwrap();
    p.expect("  * f a.").unwrap();
    p.expect("[1] ?- ").unwrap();
    p.send_line("pop.").unwrap();
    p.expect("[back at the outermost top level]").unwrap();
    p.expect("?- ").unwrap();
    p.send(ControlCode::EndOfTransmission).unwrap();
    p.expect(Eof).unwrap();
    assert!(matches!(
        p.get_process().wait(),
        Ok(WaitStatus::Exited(_, 0))
    ));
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "hello\nX = 1\n");
}

#[test]
fn with_all_answers_show_as_they_are_found() {
    // A goal with a billion answers, each after a count to 100,000, under
    // `--all`: its answers appear while it runs, and Ctrl-C stops it.
    let (_dir, mut p) = start("all", &["--all"]);
    p.send_line("between 1 1000000000 X, count (between 1 100000 Y) N.")
        .unwrap();
    p.expect("X = 3, N = 100000\r\n").unwrap();
    p.send(ControlCode::EndOfText).unwrap();
    p.expect("interrupted").unwrap();
    p.expect("?- ").unwrap();
    p.send_line("X = 1.").unwrap();
    p.expect("X = 1").unwrap();
    p.expect("?- ").unwrap();
    leave(&mut p);
}

#[test]
fn ctrl_d_pops_a_nested_level_and_bye_leaves() {
    let (_dir, mut p) = start("pop", &["-I", "programs"]);
    p.send_line("load solitaire2.").unwrap();
    p.expect("[1] ?- ").unwrap();
    p.send_line("top.").unwrap();
    p.expect("[2] ?- ").unwrap();
    p.send(ControlCode::EndOfTransmission).unwrap();
    p.expect("[back at top level 1]").unwrap();
    p.expect("[1] ?- ").unwrap();
    p.send_line("jump f.").unwrap();
    p.expect("yes").unwrap();
    p.expect("[1] ?- ").unwrap();
    p.send_line("bye.").unwrap();
    p.expect(Eof).unwrap();
    assert!(matches!(
        p.get_process().wait(),
        Ok(WaitStatus::Exited(_, 0))
    ));
}

/// Goals that arrive together run in turn, none lost: several on one
/// line, several lines in one write (a paste where the terminal does not
/// mark pastes), and a bracketed paste of several lines.
#[test]
fn goals_typed_or_pasted_together_all_run() {
    let (_dir, mut p) = start("paste", &[]);
    p.send("A is 1 + 1. B is 2 + 2.\r").unwrap();
    p.expect("A = 2").unwrap();
    p.expect("B = 4").unwrap();
    p.expect("?- ").unwrap();
    p.send("C is 3 + 3.\rD is 4 + 4.\r").unwrap();
    p.expect("C = 6").unwrap();
    p.expect("D = 8").unwrap();
    p.expect("?- ").unwrap();
    p.send("\x1b[200~E is 5 + 5.\rF is 6 + 6.\x1b[201~\r")
        .unwrap();
    p.expect("E = 10").unwrap();
    p.expect("F = 12").unwrap();
    p.expect("?- ").unwrap();
    p.send_line("bye.").unwrap();
    p.expect(Eof).unwrap();
}

/// Run the binary with `input` piped to stdin; (stdout, stderr, status).
fn piped(args: &[&str], input: &str) -> (String, String, i32) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_lolli"))
        .args(args)
        .current_dir(root())
        .env_remove("LOLLI_PATH")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
        out.status.code().unwrap_or(-1),
    )
}

#[test]
fn piped_goals_print_like_eval() {
    let script = "\
jump (j J1 (j J2 f)).
jump (j (e z z)
      f).
% comments and blank lines are skipped

solitaire2 --o top.
jump (j J1 f), erase.
write hello, nl, erase.
pop.
fail.
:time off
bye.
jump f.
";
    let (out, err, status) = piped(&["-I", "programs", "programs/solitaire2.lolli"], script);
    assert_eq!(
        out,
        "J1 = ne (s (s (s (s z)))) (s z), J2 = sw (s z) (s z)\n\
         no\n\
         J1 = ne (s (s (s (s z)))) (s z)\n\
         hello\n\
         yes\n\
         no\n\
         timing off\n"
    );
    assert_eq!((err.as_str(), status), ("", 0));
}

/// Several goals on one line run in turn; a goal may go on to the next
/// line after another ended, and a command may follow a goal; a lone `;`
/// on its line is explained, not read as the start of the next goal.
#[test]
fn piped_goals_several_on_a_line() {
    let script =
        "X = 1. Y = 2. % two goals\nZ = f (3,\n 4). :time off\nread T. W = 5.\nt.\n;\nV = 6.\n";
    let (out, err, status) = piped(&[], script);
    assert_eq!(
        out,
        "X = 1\nY = 2\nZ = f (3, 4)\ntiming off\nT = t\nW = 5\n\
         `;` asks for the next answer at `more?`; here, type a goal ending with `.`\nV = 6\n"
    );
    assert_eq!((err.as_str(), status), ("", 0));
}

#[test]
fn piped_errors_stop_with_status_2() {
    let (out, err, status) = piped(&[], "X = 1, write X, nl.\nfoo (.\nX = 2.\n");
    assert_eq!(out, "1\nX = 1\n");
    assert_eq!(
        err,
        "error[E001]: syntax error: unbalanced parenthesis: this `(` is never closed\n  \
         ┌─ <stdin>:2:5\n  │\n2 │ foo (.\n  │     ^\n  │\n  = expected a term\n\n"
    );
    assert_eq!(status, 2);
}

#[test]
fn eval_goals_that_open_a_top_level_read_stdin() {
    let (out, err, status) = piped(
        &["-I", "programs", "-e", "solitaire2 --o top", "-e", "X = 3"],
        "jump (j J1 f), erase.\npop.\n",
    );
    assert_eq!(out, "J1 = ne (s (s (s (s z)))) (s z)\nX = 3\n");
    assert_eq!((err.as_str(), status), ("", 0));
}
