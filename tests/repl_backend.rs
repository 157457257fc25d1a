//! The top level's backend without a terminal: goals and commands in,
//! outputs out.  Covers answers on demand, nested top levels and their
//! resources, errors leaving the session intact, interrupts, the commands,
//! and the plain (piped) front end's exact output.

use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use lolli::engine::{Host, Options};
use lolli::repl::backend::SessionFactory;
use lolli::repl::{piped, Answers, Backend, Next, Output, Reply};
use lolli::Session;
use pretty_assertions::assert_eq;

/// A host whose output the test can read.
struct SharedHost(Rc<RefCell<String>>);

impl Host for SharedHost {
    fn write(&mut self, text: &str) {
        self.0.borrow_mut().push_str(text);
    }
    fn read_line(&mut self) -> Option<String> {
        None
    }
}

fn programs() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("programs")
}

fn factory(written: Rc<RefCell<String>>, dirs: Vec<PathBuf>) -> SessionFactory {
    Box::new(move || {
        let options = Options {
            search_path: dirs.clone(),
            ..Options::default()
        };
        Session::with_options(options, Box::new(SharedHost(written.clone())))
    })
}

/// Sessions whose queries may use at most `mb` megabytes.
fn limited(mb: usize) -> SessionFactory {
    Box::new(move || {
        let options = Options {
            max_memory: Some(mb * 1024 * 1024),
            ..Options::default()
        };
        Session::with_options(options, Box::new(SharedHost(Rc::default())))
    })
}

fn backend(files: &[PathBuf], answers: Answers) -> (Backend, Rc<RefCell<String>>) {
    let written = Rc::new(RefCell::new(String::new()));
    let b = Backend::new(factory(written.clone(), vec![programs()]), files, answers)
        .unwrap_or_else(|e| panic!("load failed:\n{e}"));
    (b, written)
}

fn solitaire2() -> PathBuf {
    programs().join("solitaire2.lolli")
}

fn answer(s: &str) -> Output {
    Output::Answer(s.to_string())
}

fn reply(outputs: Vec<Output>, next: Next) -> Reply {
    Reply {
        outputs,
        next,
        streamed: 0,
    }
}

/// A temporary directory, removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str) -> Self {
        let p = std::env::temp_dir().join(format!("lolli-repl-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).unwrap();
        TempDir(p)
    }
    fn file(&self, name: &str, text: &str) -> PathBuf {
        let p = self.0.join(name);
        std::fs::write(&p, text).unwrap();
        p
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

const TWO_JUMPS: &str = "jump (j J1 (j J2 f)).";
const FIRST: &str = "J1 = ne (s (s (s (s z)))) (s z), J2 = sw (s z) (s z)";
const SECOND: &str = "J1 = ne (s (s (s (s z)))) (s z), J2 = w (s (s (s z))) (s (s (s z)))";

#[test]
fn answers_come_one_at_a_time_on_demand() {
    let (mut b, _) = backend(&[solitaire2()], Answers::Ask);
    assert_eq!(b.input(TWO_JUMPS), reply(vec![answer(FIRST)], Next::More));
    assert_eq!(b.more(true), reply(vec![answer(SECOND)], Next::More));
    assert_eq!(b.more(false), reply(vec![], Next::Goal));
    // The query was undone: the same goal starts again from the first answer.
    assert_eq!(b.input(TWO_JUMPS), reply(vec![answer(FIRST)], Next::More));
    // A new goal while an answer waits abandons the old query.
    assert_eq!(b.input("jump f."), reply(vec![answer("yes")], Next::Goal));
    assert_eq!(
        b.input("jump (j (e z z) f)."),
        reply(vec![Output::No], Next::Goal)
    );
    assert_eq!(
        b.input("(X = 1 ; X = 2), erase."),
        reply(vec![answer("X = 1")], Next::More)
    );
    // No choice is left after the last answer: no `more?`.
    assert_eq!(b.more(true), reply(vec![answer("X = 2")], Next::Goal));
    // A choice is left, but leads nowhere: `no` when asked.
    assert_eq!(
        b.input("(X = 1 ; X = 2 ; X = 3), X < 3, erase."),
        reply(vec![answer("X = 1")], Next::More)
    );
    assert_eq!(b.more(true), reply(vec![answer("X = 2")], Next::More));
    assert_eq!(b.more(true), reply(vec![Output::No], Next::Goal));
    assert_eq!(b.depth(), 0);
    // A line of comments only is no goal: nothing happens.
    for blank in [
        "",
        "  ",
        "% a comment",
        "/* a comment */",
        "% one\n/* two */\n",
    ] {
        assert_eq!(b.input(blank), reply(vec![], Next::Goal), "{blank:?}");
    }
}

#[test]
fn other_answer_policies() {
    let (mut b, _) = backend(&[solitaire2()], Answers::Take(2));
    assert_eq!(
        b.input(TWO_JUMPS),
        reply(vec![answer(FIRST), answer(SECOND)], Next::Goal)
    );
    b.set_answers(Answers::Count(usize::MAX));
    assert_eq!(
        b.input("(X = 1 ; X = 2 ; X = 3), erase."),
        reply(vec![Output::Count(3)], Next::Goal)
    );
    b.set_answers(Answers::Take(1));
    assert_eq!(b.input("fail."), reply(vec![Output::No], Next::Goal));
}

#[test]
fn nested_top_levels_restore_their_resources_for_every_query() {
    let (mut b, _) = backend(&[], Answers::Ask);
    assert_eq!(b.prompt(), "?- ");
    // Nothing defines `jump` out here: the goal is told so, and fails.
    let r = b.input("jump f.");
    assert!(
        matches!(r.outputs.as_slice(), [Output::Warning(w), Output::No] if w.contains("W002")),
        "{r:?}"
    );
    assert_eq!(
        b.input("solitaire2 --o top."),
        reply(vec![Output::Opened(1)], Next::Goal)
    );
    assert_eq!((b.depth(), b.prompt().as_str()), (1, "[1] ?- "));
    // Each query must use up the module's pegs; they are back for the next one.
    assert_eq!(b.input(TWO_JUMPS), reply(vec![answer(FIRST)], Next::More));
    assert_eq!(b.more(false), reply(vec![], Next::Goal));
    assert_eq!(b.input(TWO_JUMPS), reply(vec![answer(FIRST)], Next::More));
    // A goal that leaves the other pegs has no answer, and is told why.
    let r = b.input("b z z peg.");
    assert!(
        matches!(r.outputs.as_slice(), [Output::No, Output::Note(n)]
            if n.contains("a proof was found but rejected: it left linear resources unused (`b ")),
        "{r:?}"
    );
    assert_eq!(
        b.input("b z z peg, erase."),
        reply(vec![answer("yes")], Next::Goal)
    );
    // A second level, then `popall` back to the outermost.
    assert_eq!(b.input("top."), reply(vec![Output::Opened(2)], Next::Goal));
    assert_eq!(b.prompt(), "[2] ?- ");
    assert_eq!(
        b.input("popall."),
        reply(vec![Output::Closed(0)], Next::Goal)
    );
    let r = b.input("jump f.");
    assert!(
        matches!(r.outputs.as_slice(), [Output::Warning(_), Output::No]),
        "{r:?}"
    );
    // `load M` is `M --o top`; `pop` and Ctrl-D close one level.
    assert_eq!(
        b.input("load solitaire2."),
        reply(vec![Output::Opened(1)], Next::Goal)
    );
    assert_eq!(b.input("top."), reply(vec![Output::Opened(2)], Next::Goal));
    assert_eq!(b.input("pop."), reply(vec![Output::Closed(1)], Next::Goal));
    assert_eq!(b.input("jump f."), reply(vec![answer("yes")], Next::Goal));
    assert_eq!(b.eof(), reply(vec![Output::Closed(0)], Next::Goal));
    assert_eq!(b.input("pop."), reply(vec![Output::Outermost], Next::Goal));
    assert_eq!(b.eof(), reply(vec![], Next::Quit));
}

#[test]
fn a_level_opened_after_backtracking_keeps_its_bindings() {
    let (mut b, _) = backend(&[], Answers::Ask);
    assert_eq!(
        b.input("X = 1 ; X = 2, top."),
        reply(vec![answer("X = 1")], Next::More)
    );
    assert_eq!(b.more(true), reply(vec![Output::Opened(1)], Next::Goal));
    assert_eq!(b.input("bye."), reply(vec![], Next::Quit));
    assert_eq!(b.depth(), 0);
}

/// `pop` ends the goal that called `top` where it stands: what follows
/// `top` in it never runs, it shows no answer, and its other choices are
/// not tried (tester-s12 finding 11, as README and LANGUAGE.md section 7
/// now say); `popall` does so for every level; `abort` ends only the goal
/// typed at the nested level, which stays open.
#[test]
fn pop_abandons_the_goal_that_called_top() {
    let (mut b, written) = backend(&[], Answers::Ask);
    assert_eq!(
        b.input("top, write after, nl."),
        reply(vec![Output::Opened(1)], Next::Goal)
    );
    assert_eq!(b.input("pop."), reply(vec![Output::Closed(0)], Next::Goal));
    // Other choices of the abandoned goal are not tried either.
    assert_eq!(
        b.input("member X (a :: b :: nil), top, write X."),
        reply(vec![Output::Opened(1)], Next::Goal)
    );
    assert_eq!(b.input("abort."), reply(vec![Output::Aborted], Next::Goal));
    assert_eq!(b.depth(), 1);
    assert_eq!(b.input("pop."), reply(vec![Output::Closed(0)], Next::Goal));
    assert_eq!(
        b.input("top, write one, top, write two."),
        reply(vec![Output::Opened(1)], Next::Goal)
    );
    assert_eq!(
        b.input("write three, top, write four."),
        reply(vec![Output::Opened(2)], Next::Goal)
    );
    assert_eq!(
        b.input("popall."),
        reply(vec![Output::Closed(0)], Next::Goal)
    );
    assert_eq!(written.borrow().as_str(), "three");
    assert_eq!(b.input("X = 1."), reply(vec![answer("X = 1")], Next::Goal));
}

#[test]
fn context_marks_the_resources_still_available() {
    let dir = TempDir::new("context");
    let f = dir.file(
        "res.lolli",
        "LINEAR r1.\nLINEAR r2. % the second\nkeep :- r1.\n",
    );
    let (mut b, _) = backend(&[f], Answers::Ask);
    assert_eq!(
        b.input("r1, top."),
        reply(vec![Output::Opened(1)], Next::Goal)
    );
    let Reply { outputs, .. } = b.input(":context");
    assert_eq!(
        outputs,
        vec![Output::Text(
            "8 unbounded clauses, 2 linear resources (1 still available, marked *; \
             1 used up, marked -)\n\
             by predicate, each in the order the search tries them (the newest \
             assumption or file first; within one, in the order written):\n\
             r1/0:\n  \
             - r1.\n\
             r2/0:\n  \
             * r2.\n\
             keep/0:\n    \
             keep :- r1.\n\
             length/2:\n    \
             length L N :- length_from L 0 N.\n\
             length_from/3:\n    \
             length_from nil N N.\n    \
             length_from (_ :: T) K N :- var N -> true | K < N, K1 is K + 1, length_from T K1 N.\n\
             append/3:\n    \
             append nil L L.\n    \
             append (X :: A) B (X :: C) :- append A B C.\n\
             member/2:\n    \
             member X (X :: _).\n    \
             member X (_ :: L) :- member X L.\n"
                .to_string()
        )]
    );
    // The nested query must use r2, and only r2.
    assert_eq!(b.input("keep."), reply(vec![Output::No], Next::Goal));
    assert_eq!(b.input("r2."), reply(vec![answer("yes")], Next::Goal));
    assert_eq!(b.input("pop."), reply(vec![Output::Closed(0)], Next::Goal));
    let Reply { outputs, .. } = b.input(":ctx");
    let Output::Text(t) = &outputs[0] else {
        panic!("{outputs:?}")
    };
    assert!(t.contains("(2 still available, marked *; 0 used up"), "{t}");
}

/// An assumed clause that quantifies shows its quantifiers (tester-s14 F7:
/// without them its variables read as shared with the query), its
/// variables named after the binders (capitalized), not as `_V0`, and never
/// with a name the query's own variables have.
#[test]
fn context_names_the_variables_of_assumed_quantified_clauses() {
    let (mut b, _) = backend(&[], Answers::Ask);
    let text = |r: Reply| match r.outputs.as_slice() {
        [Output::Text(t)] => t.clone(),
        other => panic!("{other:?}"),
    };
    b.input("(forall x \\ p x :- q x) -o top.");
    let t = text(b.input(":context"));
    assert!(t.contains("\np/1:\n  * forall X \\ p X :- q X.\n"), "{t}");
    b.input("pop.");
    b.input("(forall x \\ forall y \\ r x y :- q x, s X Y) -o top.");
    let t = text(b.input(":context"));
    assert!(
        t.contains("\nr/2:\n  * forall X2 \\ forall Y2 \\ r X2 Y2 :- q X2, s X Y.\n"),
        "{t}"
    );
}

/// Each predicate's clauses and resources show in the order the search
/// tries them, linear and unbounded interleaved (tester-s12 point 12: two
/// sections hid that the linear `f four` comes before the file's `f
/// three`); the order is the one a call meets.
#[test]
fn context_lists_each_predicate_in_the_order_of_the_search() {
    let dir = TempDir::new("context-order");
    let f = dir.file("f.lolli", "f three.\nr 1.\n");
    let (mut b, _) = backend(&[f], Answers::Ask);
    assert_eq!(
        b.input("(f four, r 3, {f five}) -o top."),
        reply(vec![Output::Opened(1)], Next::Goal)
    );
    assert_eq!(
        b.input("r 3, top."),
        reply(vec![Output::Opened(2)], Next::Goal)
    );
    let Reply { outputs, .. } = b.input(":context");
    let Output::Text(t) = &outputs[0] else {
        panic!("{outputs:?}")
    };
    assert!(
        t.starts_with(
            "10 unbounded clauses, 2 linear resources (1 still available, marked *; \
             1 used up, marked -)\nby predicate, each in the order the search tries them \
             (the newest assumption or file first; within one, in the order written):\n\
             f/1:\n  * f four.\n    f five.\n    f three.\n\
             r/1:\n  - r 3.\n    r 1.\n\
             length/2:\n"
        ),
        "{t}"
    );
    // The search meets them in that order.
    assert_eq!(
        b.input("f X, erase."),
        reply(vec![answer("X = four")], Next::More)
    );
    assert_eq!(b.more(true), reply(vec![answer("X = five")], Next::More));
    assert_eq!(b.more(true), reply(vec![answer("X = three")], Next::Goal));
}

#[test]
fn context_shows_module_clauses_with_their_environment() {
    // The counter module of LANGUAGE.md section 6: its clauses show the
    // parameter as loaded and the LOCAL name as the constant of the loading.
    let dir = TempDir::new("context-module");
    dir.file(
        "counter.lolli",
        "MODULE counter Start.\nLOCAL key.\nLINEAR cnt key Start.\nget N :- cnt key N.\n",
    );
    let written = Rc::new(RefCell::new(String::new()));
    let mut b = Backend::new(factory(written, vec![dir.0.clone()]), &[], Answers::Ask)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        b.input("load (counter 5)."),
        reply(vec![Output::Opened(1)], Next::Goal)
    );
    let Reply { outputs, .. } = b.input(":context");
    let Output::Text(t) = &outputs[0] else {
        panic!("{outputs:?}")
    };
    assert!(t.contains("\nget/1:\n    get N :- cnt key_1 N.\n"), "{t}");
    assert!(t.contains("\ncnt/2:\n  * cnt key_1 5.\n"), "{t}");
    assert!(
        t.starts_with("8 unbounded clauses, 1 linear resource (1 still"),
        "{t}"
    );
    assert_eq!(
        b.input("cnt K N."),
        reply(vec![answer("K = key_1, N = 5")], Next::Goal)
    );
}

#[test]
fn errors_leave_the_session_as_it_was() {
    let (mut b, written) = backend(&[], Answers::Ask);
    assert_eq!(
        b.input("solitaire2 --o top."),
        reply(vec![Output::Opened(1)], Next::Goal)
    );
    let Reply { outputs, next, .. } = b.input("jump (j J1.");
    assert_eq!(next, Next::Goal);
    assert_eq!(
        outputs,
        vec![Output::Error(
            "error[E001]: syntax error: unbalanced parenthesis: this `(` is never closed\n  \
             ┌─ <goal>:1:6\n  │\n1 │ jump (j J1.\n  │      ^\n  │\n  = expected `)`\n\n"
                .to_string()
        )]
    );
    let Reply { outputs, .. } = b.input("write before, nl, X.");
    assert!(
        matches!(&outputs[..], [Output::Error(e)] if e.contains("an unbound variable was called as a goal")),
        "{outputs:?}"
    );
    assert_eq!(written.borrow().as_str(), "before\n");
    assert_eq!(b.depth(), 1);
    assert_eq!(b.input(TWO_JUMPS), reply(vec![answer(FIRST)], Next::More));
    let Reply { outputs, .. } = b.input("nosuchmodule --o top.");
    assert!(
        matches!(&outputs[..], [Output::Error(e)] if e.contains("module `nosuchmodule` not found")),
        "{outputs:?}"
    );
    assert_eq!(b.depth(), 1);
}

#[test]
fn a_query_stopped_by_the_memory_limit_does_not_stop_the_next() {
    let dir = TempDir::new("memory");
    let f = dir.file("grow.lolli", "grow X :- grow (f X).\n");
    let mut b = Backend::new(limited(20), &[f], Answers::Take(1)).expect("loads");
    let Reply { outputs, .. } = b.input("grow a.");
    assert!(
        matches!(&outputs[..], [Output::Error(e)] if e.contains("memory limit exceeded")),
        "{outputs:?}"
    );
    // Long enough for the limit to be checked many times, small in memory:
    // the room the stopped query left behind must not count against it.
    assert_eq!(
        b.input("between 1 100000 X, fail."),
        reply(vec![Output::No], Next::Goal)
    );
}

#[test]
fn an_interrupt_stops_the_running_query_only() {
    let dir = TempDir::new("interrupt");
    let f = dir.file("loop.lolli", "loop :- loop.\nok.\n");
    let (mut b, _) = backend(&[f], Answers::Ask);
    let flag = b.interrupt_flag();
    let done = Arc::new(AtomicBool::new(false));
    let pressing = {
        let (flag, done) = (flag.clone(), done.clone());
        // Keeps "pressing Ctrl-C" until the query has stopped.
        std::thread::spawn(move || {
            while !done.load(Ordering::Relaxed) {
                flag.store(true, Ordering::Relaxed);
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
        })
    };
    let Reply { outputs, next, .. } = b.input("loop.");
    done.store(true, Ordering::Relaxed);
    pressing.join().unwrap();
    assert_eq!(next, Next::Goal);
    assert!(
        matches!(&outputs[..], [Output::Error(e)] if e.starts_with("error") && e.contains("interrupted")),
        "{outputs:?}"
    );
    flag.store(true, Ordering::Relaxed); // a stale Ctrl-C does not stop the next query
    assert_eq!(b.input("ok."), reply(vec![answer("yes")], Next::Goal));
}

#[test]
fn load_and_reload_keep_the_nesting() {
    let dir = TempDir::new("reload");
    let f = dir.file("colour.lolli", "colour red.\n");
    let (mut b, _) = backend(&[], Answers::Ask);
    let load = format!(":load {}", f.display());
    assert_eq!(
        b.input(&load),
        reply(
            vec![Output::Text(format!("loaded {}\n", f.display()))],
            Next::Goal
        )
    );
    let Reply { outputs, .. } = b.input(&load);
    assert!(
        matches!(&outputs[..], [Output::Error(e)] if e.contains("already loaded")),
        "{outputs:?}"
    );
    assert_eq!(
        b.input("colour C."),
        reply(vec![answer("C = red")], Next::Goal)
    );
    assert_eq!(b.input("top."), reply(vec![Output::Opened(1)], Next::Goal));
    std::fs::write(&f, "colour blue.\n").unwrap();
    assert_eq!(
        b.input(":reload"),
        reply(
            vec![Output::Text(
                "reloaded 1 file, 1 nested level reopened\n".into()
            )],
            Next::Goal
        )
    );
    assert_eq!(b.depth(), 1);
    assert_eq!(
        b.input("colour C."),
        reply(vec![answer("C = blue")], Next::Goal)
    );
    // A file loaded at the nested level is reloaded, and counted, too
    // (tester-s12: "reloaded 1 file" for two).
    let shape = dir.file("shape.lolli", "shape round.\n");
    b.input(&format!(":load {}.", shape.display()));
    std::fs::write(&shape, "shape square.\n").unwrap();
    assert_eq!(
        b.input(":reload"),
        reply(
            vec![Output::Text(
                "reloaded 2 files, 1 nested level reopened\n".into()
            )],
            Next::Goal
        )
    );
    assert_eq!(
        b.input("shape S."),
        reply(vec![answer("S = square")], Next::Goal)
    );
    assert_eq!(
        b.input(":load /no/such/file.lolli"),
        reply(
            vec![Output::Error(
                "error[E002]: cannot find the program file `/no/such/file.lolli`\n \
                 = looked in the directory `/no/such`\n\n"
                    .into()
            )],
            Next::Goal
        )
    );
}

#[test]
fn load_and_reload_follow_the_warning_option() {
    // tester-s12 finding 2: `-W none` and `-W error` applied to the files
    // of the command line only.
    let dir = TempDir::new("load-warnings");
    let warned = dir.file("warned.lolli", "p X Y :- q X.\nq a.\n");
    let clean = dir.file("clean.lolli", "r b.\n");
    let load = |f: &Path| format!(":load {}", f.display());
    let loaded = |f: &Path| Output::Text(format!("loaded {}\n", f.display()));
    let errors = |outputs: &[Output]| -> Vec<String> {
        outputs
            .iter()
            .filter_map(|o| match o {
                Output::Error(e) => Some(e.clone()),
                _ => None,
            })
            .collect()
    };

    // Hidden.
    let (mut b, _) = backend(&[], Answers::Ask);
    b.set_warnings(None);
    assert_eq!(
        b.input(&load(&warned)),
        reply(vec![loaded(&warned)], Next::Goal)
    );
    assert_eq!(b.input("q X."), reply(vec![answer("X = a")], Next::Goal));
    assert_eq!(
        b.input(":reload"),
        reply(vec![Output::Text("reloaded 1 file\n".into())], Next::Goal)
    );

    // As errors: the file is refused, the program stays as it was.
    let (mut b, _) = backend(&[], Answers::Ask);
    b.set_warnings(Some(lolli::diagnostics::Severity::Error));
    let Reply { outputs, .. } = b.input(&load(&warned));
    let e = errors(&outputs);
    assert!(
        e.len() == 1
            && e[0].starts_with("error[W001]")
            && e[0].ends_with("the file was not loaded\n"),
        "{outputs:?}"
    );
    assert!(!outputs.contains(&loaded(&warned)), "{outputs:?}");
    assert_eq!(
        b.input(&load(&clean)),
        reply(vec![loaded(&clean)], Next::Goal)
    );
    assert_eq!(b.input("r X."), reply(vec![answer("X = b")], Next::Goal));
    // A file that gets a warning after an edit is not reloaded.
    std::fs::write(&clean, "r b.\ns X :- r b.\n").unwrap();
    let Reply { outputs, .. } = b.input(":reload");
    let e = errors(&outputs);
    assert!(
        e.len() == 1 && e[0].ends_with("the program is as it was before `:reload`\n"),
        "{outputs:?}"
    );
    assert_eq!(b.input("r X."), reply(vec![answer("X = b")], Next::Goal));
}

#[test]
fn a_failed_reload_closes_the_nested_levels_for_good() {
    let dir = TempDir::new("reload-fails");
    let f = dir.file("prog.lolli", "p a.\n");
    let (mut b, _) = backend(std::slice::from_ref(&f), Answers::Ask);
    // A nested level whose context holds a linear resource.
    assert_eq!(
        b.input("token -o top."),
        reply(vec![Output::Opened(1)], Next::Goal)
    );
    std::fs::write(&f, "p a.\np (.\n").unwrap();
    let Reply { outputs, .. } = b.input(":reload");
    assert!(
        matches!(&outputs[..], [Output::Error(e), Output::Text(t)]
            if e.contains("syntax error") && t.contains("nested levels are closed")),
        "{outputs:?}"
    );
    assert_eq!(b.depth(), 0);
    // The level's resource went with it: nothing is left to consume.
    assert_eq!(b.input("p a."), reply(vec![answer("yes")], Next::Goal));
    let Reply { outputs, .. } = b.input(":context");
    assert!(
        matches!(&outputs[..], [Output::Text(t)] if !t.contains("token")),
        "{outputs:?}"
    );
}

#[test]
fn a_semicolon_at_the_prompt_is_explained() {
    // One `;` too many after the last answer reaches the prompt.
    let (mut b, _) = backend(&[], Answers::Ask);
    assert_eq!(
        b.input(";"),
        reply(
            vec![Output::Text(
                "`;` asks for the next answer at `more?`; here, type a goal ending with `.`\n"
                    .into()
            )],
            Next::Goal
        )
    );
    assert_eq!(b.input("true."), reply(vec![answer("yes")], Next::Goal));
}

#[test]
fn commands_answer_in_words() {
    let (mut b, _) = backend(&[solitaire2()], Answers::Ask);
    let Reply { outputs, .. } = b.input(":help");
    let [Output::Text(help)] = &outputs[..] else {
        panic!("{outputs:?}")
    };
    assert!(help.contains(":load FILE"), "{help}");
    assert!(
        help.contains("erase        ⊤  succeed, using up whatever is left of R"),
        "{help}"
    );
    assert_eq!(
        b.input(":time on"),
        reply(vec![Output::Text("timing on\n".into())], Next::Goal)
    );
    let Reply { outputs, .. } = b.input("jump f.");
    assert_eq!(outputs[0], answer("yes"));
    assert!(
        matches!(&outputs[1], Output::Text(t) if t.starts_with("% 1 inference in ") && t.ends_with(" s\n")),
        "{outputs:?}"
    );
    b.input(":time off");
    assert_eq!(b.input("jump f."), reply(vec![answer("yes")], Next::Goal));
    let Reply { outputs, .. } = b.input(":stats");
    let [Output::Text(stats)] = &outputs[..] else {
        panic!("{outputs:?}")
    };
    assert!(stats.starts_with("queries run:       2\n"), "{stats}");
    assert!(
        stats.contains("context entries:   29 (14 unbounded, 15 linear)\n"),
        "{stats}"
    );
    let Reply { outputs, .. } = b.input(":nope");
    assert_eq!(
        outputs,
        vec![Output::Error(
            "error: unknown command `:nope`\n  `:help` lists the commands\n".into()
        )]
    );
    assert_eq!(b.input(":quit"), reply(vec![], Next::Quit));
}

#[test]
fn completion_knows_predicates_builtins_and_modules() {
    let (b, _) = backend(&[solitaire2()], Answers::Ask);
    let words = b.completion_words();
    for w in ["jump", "b", "write", "solitaire", "solitaire2"] {
        assert!(words.iter().any(|x| x == w), "{w} missing from {words:?}");
    }
    // A LOCAL predicate prints as `helper_1`, a name nobody can type (it
    // would name a new global constant): completion does not offer it.
    let dir = TempDir::new("complete-local");
    let file = dir.file(
        "hidden.lolli",
        "MODULE hidden.\nLOCAL helper.\nhelper 1.\nshow X :- helper X.\n",
    );
    let (b, _) = backend(&[file], Answers::Ask);
    let words = b.completion_words();
    assert!(words.iter().any(|x| x == "show"), "{words:?}");
    assert!(!words.iter().any(|x| x.starts_with("helper_")), "{words:?}");
}

#[test]
fn piped_mode_prints_like_eval() {
    let (mut b, written) = backend(&[solitaire2()], Answers::Take(1));
    let script = "jump (j J1\n  (j J2 f)).\n\n% a comment line\njump (j (e z z) f).\n\
                  solitaire2 --o top.\nwrite hello, nl, erase.\n:time off\npop.\njump f";
    let mut lines = script.split_inclusive('\n').map(String::from);
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let status = piped::run(&mut b, &mut || Ok(lines.next()), &mut out, &mut err, 0);
    assert_eq!(
        String::from_utf8(out).unwrap(),
        format!("{FIRST}\nno\nyes\ntiming off\nyes\n")
    );
    assert_eq!(written.borrow().as_str(), "hello\n");
    assert_eq!(String::from_utf8(err).unwrap(), "");
    assert_eq!(status, 0);

    // The first error stops the script with status 2.
    let mut lines = ["fail.\n", "jump (.\n", "jump f.\n"]
        .into_iter()
        .map(String::from);
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let status = piped::run(&mut b, &mut || Ok(lines.next()), &mut out, &mut err, 0);
    assert_eq!(
        (String::from_utf8(out).unwrap().as_str(), status),
        ("no\n", 2)
    );
    assert!(String::from_utf8(err).unwrap().starts_with("error[E001]"));
}

#[test]
fn trace_shows_calls_resources_and_backtracking() {
    let (mut b, _) = backend(&[], Answers::Take(1));
    assert_eq!(
        b.input(":trace on"),
        reply(vec![Output::Text("trace on\n".into())], Next::Goal)
    );
    let r = b.input("(p a , q) -o (p b ; p a , q).");
    assert_eq!(
        r,
        reply(
            vec![
                Output::Text(
                    "assume p a, q linearly, to prove p b ; p a, q\n\
                     call p b\n\
                     fail p b\n\
                     call p a\n  \
                       by consuming p a\n\
                     call q\n  \
                       by consuming q\n"
                        .into()
                ),
                answer("yes"),
            ],
            Next::Goal
        )
    );
    b.input(":trace off");
    assert_eq!(b.input("a -o a."), reply(vec![answer("yes")], Next::Goal));
}

/// An assumed clause that quantifies is traced with its `forall`s, where
/// it is assumed and where it is used, so that its `X` is not taken for
/// the query's shared `Y` (tester-s14 F7).
#[test]
fn trace_shows_the_quantifiers_of_an_assumed_clause() {
    let (mut b, _) = backend(&[], Answers::Take(1));
    b.input(":trace on");
    let r = b.input("(forall x \\ q x Y) -o q a b.");
    assert_eq!(
        r,
        reply(
            vec![
                Output::Text(
                    "assume forall X \\ q X Y linearly, to prove q a b\n\
                     call q a b\n  \
                       by consuming forall X \\ q X b\n"
                        .into()
                ),
                answer("Y = b"),
            ],
            Next::Goal
        )
    );
}

#[test]
fn trace_shows_why_a_search_fails_at_the_depth_of_each_step() {
    let dir = TempDir::new("trace-why");
    let f = dir.file(
        "why.lolli",
        "try :- b ; c.\nb :- d.\nd :- 1 > 2.\nc.\n\
         deep 0 :- X is 1 / 0.\ndeep N :- N > 0, M is N - 1, deep M.\n\
         MEMO bad.\nbad X :- X > 5, fail.\ntwice :- bad 7 ; bad 7 ; true.\n",
    );
    let (mut b, _) = backend(&[f], Answers::Take(1));
    b.input(":trace on");
    let trace = |r: Reply| match &r.outputs[..] {
        [Output::Text(t), ..] => t.clone(),
        other => panic!("{other:?}"),
    };
    // The failing built-in is shown, and the other branch of `;` is at the
    // depth of the first one, not inside the call that failed.
    let origin = |line: u32| format!("{}:{line}", dir.0.join("why.lolli").display());
    assert_eq!(
        trace(b.input("try.")),
        format!(
            "call try\n  \
               by using try :- b ; c  ({})\n  \
             call b\n    \
               by using b :- d  ({})\n    \
             call d\n      \
               by using d :- 1 > 2  ({})\n      \
             call 1 > 2\n      \
             fail 1 > 2\n  \
             call c\n    \
               by using c  ({})\n",
            origin(1),
            origin(2),
            origin(3),
            origin(4)
        )
    );
    // A resource left over where its `-o` ends.
    assert_eq!(
        trace(b.input("a -o a -o a.")),
        "assume a linearly, to prove a -o a\n\
         assume a linearly, to prove a\n\
         call a\n  \
           by consuming a\n\
         unused a  (a linear resource must be used up by the end of its `-o`)\n\
         redo a\n  \
           by consuming a\n\
         unused a  (a linear resource must be used up by the end of its `-o`)\n"
    );
    // A failure answered from the memo table.
    assert!(trace(b.input("twice.")).ends_with(
        "  call bad 7\n  fail bad 7  (MEMO: it failed before with the same resources)\n"
    ));
    // A goal stopped by an error three levels down leaves the next goal's
    // trace at the left margin.
    let r = b.input("deep 3.");
    assert!(
        matches!(&r.outputs[..], [Output::Text(_), Output::Error(_)]),
        "{r:?}"
    );
    assert_eq!(
        trace(b.input("c.")),
        format!("call c\n  by using c  ({})\n", origin(4))
    );
}

/// The trace of each goal, one after the other, in a session with `file`
/// (named `name`) loaded and `:trace on`.
fn traces(dir: &TempDir, name: &str, file: &str, goals: &[&str]) -> Vec<String> {
    let f = dir.file(name, file);
    let (mut b, _) = backend(&[f], Answers::Take(1));
    b.input(":trace on");
    goals
        .iter()
        .map(|g| match &b.input(g).outputs[..] {
            [Output::Text(t), ..] => t.clone(),
            other => panic!("{g}: {other:?}"),
        })
        .collect()
}

#[test]
fn trace_numbers_each_variable_once_for_the_whole_query() {
    // A variable keeps its number from line to line (`_2` is the list's
    // tail on both lines that show it), and one made later gets a new
    // number (the `_1` line used to be followed by another `_1`, the tail).
    // After backtracking, the second clause's `Y` is a new variable, made
    // where the first clause's `_X` was: it is `_2`, not `_1` again.
    let dir = TempDir::new("trace-numbers");
    let at = |line: u32| format!("{}:{line}", dir.0.join("n.lolli").display());
    let t = traces(
        &dir,
        "n.lolli",
        "num nil N N.\nnum (_ :: T) K N :- K < N, K1 is K + 1, num T K1 N.\n\
         r :- s _X, fail.\nr :- s Y, t Y.\ns _.\nt _.\n",
        &["num L 0 2.", "r."],
    );
    assert_eq!(
        t[0],
        format!(
            "call num L 0 2\n  \
               by using num (_ :: T) K N :- K < N, K1 is K + 1, num T K1 N  ({l2})\n  \
             call 0 < 2\n  \
             call _1 is 0 + 1\n  \
             call num _2 1 2\n    \
               by using num (_ :: T) K N :- K < N, K1 is K + 1, num T K1 N  ({l2})\n    \
             call 1 < 2\n    \
             call _3 is 1 + 1\n    \
             call num _4 2 2\n      \
               by using num nil N N  ({l1})\n",
            l1 = at(1),
            l2 = at(2)
        )
    );
    assert_eq!(
        t[1],
        format!(
            "call r\n  \
               by using r :- s _X, fail  ({})\n  \
             call s _1\n    \
               by using s _  ({})\n\
             redo r\n  \
               by using r :- s Y, t Y  ({})\n  \
             call s _2\n    \
               by using s _  ({})\n  \
             call t _2\n    \
               by using t _  ({})\n",
            at(3),
            at(5),
            at(4),
            at(5),
            at(6)
        )
    );
}

/// A clause's own variable never shows under a name of the query, also
/// when the query's variable is bound by then (tester-s12 point 12:
/// `X = a, spend Y` showed `by using spend X :- coin X`).
#[test]
fn trace_keeps_the_query_names_from_the_clause_variables() {
    let dir = TempDir::new("trace-names");
    let at = |line: u32| format!("{}:{line}", dir.0.join("s.lolli").display());
    let t = traces(
        &dir,
        "s.lolli",
        "LINEAR coin a.\nspend X :- coin X.\n",
        &["X = a, spend Y.", "spend Y.", "spend X."],
    );
    let used = |clause: &str| {
        format!(
            "  by using {clause}  ({})\n  call coin {{}}\n    by consuming coin a  ({})\n",
            at(2),
            at(1)
        )
    };
    assert_eq!(
        t[0],
        format!(
            "call X = a\ncall spend Y\n{}",
            used("spend X2 :- coin X2").replace("{}", "Y")
        )
    );
    assert_eq!(
        t[1],
        format!(
            "call spend Y\n{}",
            used("spend X :- coin X").replace("{}", "Y")
        )
    );
    assert_eq!(
        t[2],
        format!(
            "call spend X\n{}",
            used("spend X2 :- coin X2").replace("{}", "X")
        )
    );
}

#[test]
fn trace_shows_no_redo_for_a_call_that_never_succeeded() {
    // The candidates whose heads do not match are passed over: the call is
    // followed by the clause that matches, or by its failure, never by a
    // `redo` of a call that had not succeeded.  A call that had is redone.
    let dir = TempDir::new("trace-redo");
    let at = |line: u32| format!("{}:{line}", dir.0.join("m.lolli").display());
    let t = traces(
        &dir,
        "m.lolli",
        "mem X (X :: _).\nmem X (_ :: T) :- mem X T.\nnum nil N N.\n\
         num (_ :: T) K N :- K < N, K1 is K + 1, num T K1 N.\n",
        &["mem X nil.", "num L 0 1, L = nil."],
    );
    assert_eq!(t[0], "call mem X nil\nfail mem X nil\n");
    assert_eq!(
        t[1],
        format!(
            "call num L 0 1\n  \
               by using num (_ :: T) K N :- K < N, K1 is K + 1, num T K1 N  ({l4})\n  \
             call 0 < 1\n  \
             call _1 is 0 + 1\n  \
             call num _2 1 1\n    \
               by using num nil N N  ({l3})\n\
             call _3 :: nil = nil\n\
             fail _3 :: nil = nil\n  \
             redo num _2 1 1\n    \
               by using num (_ :: T) K N :- K < N, K1 is K + 1, num T K1 N  ({l4})\n    \
             call 1 < 1\n    \
             fail 1 < 1\n",
            l3 = at(3),
            l4 = at(4)
        )
    );
}

#[test]
fn trace_names_every_linear_resource_left_unused() {
    // Each one, in the order the search tries them; they used to be
    // reported one only, as if the others had been used.
    let dir = TempDir::new("trace-unused");
    let at = |line: u32| format!("{}:{line}", dir.0.join("c.lolli").display());
    let t = traces(
        &dir,
        "c.lolli",
        "LINEAR coin a.\nLINEAR coin b.\n",
        &["true.", "(p, q, r) -o (coin A, coin B, q)."],
    );
    let end = "(a linear resource must be used up by the end of";
    assert_eq!(
        t[0],
        format!(
            "unused coin a  ({})  {end} the query)\n\
             unused coin b  ({})  {end} the query)\n",
            at(1),
            at(2)
        )
    );
    assert!(
        t[1].starts_with(&format!(
            "assume p, q, r linearly, to prove coin A, coin B, q\n\
             call coin A\n  \
               by consuming coin a  ({})\n\
             call coin B\n  \
               by consuming coin b  ({})\n\
             call q\n  \
               by consuming q\n\
             unused p  {end} its `-o`)\n\
             unused r  {end} its `-o`)\n\
             redo coin A\n",
            at(1),
            at(2)
        )),
        "{}",
        t[1]
    );
}

#[test]
fn trace_shows_clauses_with_the_local_names_of_their_loading() {
    // The call shows the constant made for `key` at this loading (`key_1`);
    // the clauses used show the same constant, not the source's `key`, and
    // a clause variable named like a query variable is numbered.
    let (mut b, _) = backend(&["programs/toggle.lolli".into()], Answers::Take(1));
    b.input(":trace on");
    let r = b.input("state S done.");
    let [Output::Text(trace), ..] = &r.outputs[..] else {
        panic!("{:?}", r.outputs);
    };
    assert_eq!(
        trace,
        "call state S done\n  \
           by using state S2 G :- sw key_1 S2, sw key_1 S2 -o G  (programs/toggle.lolli:45)\n  \
         call sw key_1 S\n    \
           by consuming sw key_1 off  (programs/toggle.lolli:39)\n  \
         assume sw key_1 off linearly, to prove done\n  \
         call done\n    \
           by using done :- sw key_1 _  (programs/toggle.lolli:48)\n    \
         call sw key_1 _1\n      \
           by consuming sw key_1 off\n"
    );
}

#[test]
fn trace_and_errors_show_the_query_variables_by_name() {
    let (mut b, _) = backend(&[], Answers::Take(1));
    b.input(":trace on");
    let r = b.input("p a -o (p X , Y is X + 1).");
    let [Output::Text(trace), Output::Error(error)] = &r.outputs[..] else {
        panic!("{:?}", r.outputs);
    };
    assert_eq!(
        trace,
        "assume p a linearly, to prove p X, Y is X + 1\n\
         call p X\n  \
           by consuming p a\n\
         call Y is a + 1\n"
    );
    // X is bound to `a` by then; Y is still the query's Y.
    assert!(
        error.contains("while running the goal `Y is a + 1`"),
        "{error}"
    );
}

#[test]
fn memo_command_marks_a_predicate_and_lists_what_is_memoized() {
    let dir = TempDir::new("memo");
    let f = dir.file(
        "walk.lolli",
        "step a b.\nstep b c.\nreach X X.\nreach X Z :- step X Y, reach Y Z.\n",
    );
    let (mut b, _) = backend(&[f], Answers::Take(1));
    let text = |s: &str| reply(vec![Output::Text(s.into())], Next::Goal);
    assert_eq!(
        b.input(":memo"),
        text("no predicate is memoized (`:memo PRED` or `MEMO PRED.` in a file)\n")
    );
    assert_eq!(
        b.input(":memo reach"),
        text("failures of `reach` are memoized\n")
    );
    assert_eq!(b.input("reach a d."), reply(vec![Output::No], Next::Goal));
    assert_eq!(
        b.input(":memo"),
        text(
            "memoized: reach\nmemo table:        3 keys, 1 KB (limit 1.0 GB), 0 hits, 3 misses, \
             3 recorded, 0 evicted\n"
        )
    );
    assert_eq!(
        b.input("reach a c."),
        reply(vec![answer("yes")], Next::Goal)
    );
    // A misspelt name is memoized all the same, with a warning; a name
    // that is not a predicate name is refused.
    let Reply { outputs, .. } = b.input(":memo raech");
    assert!(
        matches!(&outputs[..], [Output::Warning(w), Output::Text(t)]
            if w.contains("warning[W007]: `raech` is memoized, but no clause defines it")
                && w.contains("did you mean `reach`?")
                && t == "failures of `raech` are memoized\n"),
        "{outputs:?}"
    );
    let Reply { outputs, .. } = b.input(":memo Reach");
    assert!(
        matches!(&outputs[..], [Output::Error(e)]
            if e.contains("error[E002]: :memo Reach: `Reach` is not a predicate name")),
        "{outputs:?}"
    );
    let Reply { outputs, .. } = b.input(":memo");
    assert!(
        matches!(&outputs[..], [Output::Text(t)] if t.starts_with("memoized: reach, raech\n")),
        "{outputs:?}"
    );
}

#[test]
fn a_memoized_goal_with_one_answer_does_not_ask_for_more() {
    // tester-s12 finding 10: the choice point a memoized call leaves to
    // record its failure made the top level ask `more?` for nothing.
    let dir = TempDir::new("memo-more");
    let f = dir.file("spend.lolli", "LINEAR coin a.\nspend X :- coin X.\n");
    let (mut b, _) = backend(&[f], Answers::Ask);
    assert_eq!(
        b.input("spend X."),
        reply(vec![answer("X = a")], Next::Goal)
    );
    b.input(":memo spend");
    assert_eq!(
        b.input("spend X."),
        reply(vec![answer("X = a")], Next::Goal)
    );
    // Where another choice is left, it still asks.
    assert_eq!(
        b.input("(spend X ; X = b)."),
        reply(vec![answer("X = a")], Next::More)
    );
    assert_eq!(b.more(true), reply(vec![Output::No], Next::Goal));
}

#[test]
fn memo_off_stops_memoizing_and_memo_given_in_a_nested_level_stays_on() {
    let dir = TempDir::new("memooff");
    let f = dir.file(
        "walk.lolli",
        "step a b.\nstep b c.\nreach X X.\nreach X Z :- step X Y, reach Y Z.\n",
    );
    let (mut b, _) = backend(&[f], Answers::Take(1));
    let text = |s: &str| reply(vec![Output::Text(s.into())], Next::Goal);
    // Turned on inside a nested top level: the end of the query that opened
    // the level restores the context, and memoization must stay on after it.
    assert_eq!(b.input("top."), reply(vec![Output::Opened(1)], Next::Goal));
    b.input(":memo reach");
    assert_eq!(b.input("pop."), reply(vec![Output::Closed(0)], Next::Goal));
    assert_eq!(b.input("reach a d."), reply(vec![Output::No], Next::Goal));
    assert_eq!(b.input("reach a d."), reply(vec![Output::No], Next::Goal));
    assert_eq!(
        b.input(":memo"),
        text(
            "memoized: reach\nmemo table:        3 keys, 1 KB (limit 1.0 GB), 1 hits, 3 misses, \
             3 recorded, 0 evicted\n"
        )
    );
    assert_eq!(
        b.input(":memo off reach"),
        text("failures of `reach` are no longer memoized\n")
    );
    assert_eq!(
        b.input(":memo"),
        text("no predicate is memoized (`:memo PRED` or `MEMO PRED.` in a file)\n")
    );
    assert_eq!(b.input("reach a d."), reply(vec![Output::No], Next::Goal));
    assert_eq!(
        b.input(":memo off reach"),
        text("`reach` is not memoized: nothing changed\n")
    );
    // On again: the keys start afresh (the counters go on), and the answers
    // are those without MEMO.
    b.input(":memo reach");
    assert_eq!(
        b.input("reach a X."),
        reply(vec![answer("X = a")], Next::Goal)
    );
    assert_eq!(b.input("reach c a."), reply(vec![Output::No], Next::Goal));
    assert_eq!(
        b.input(":memo"),
        text(
            "memoized: reach\nmemo table:        1 key, 1 KB (limit 1.0 GB), 1 hits, 5 misses, \
             4 recorded, 0 evicted\n"
        )
    );
    assert_eq!(
        b.input(":memo off"),
        text("memoization is off (a file's `MEMO` declarations apply again at `:reload`)\n")
    );
    // `:reload` brings back only what `:memo` still names: nothing.
    b.input(":reload");
    assert_eq!(
        b.input(":memo"),
        text("no predicate is memoized (`:memo PRED` or `MEMO PRED.` in a file)\n")
    );
}

#[test]
fn keys_recorded_under_a_nested_levels_memo_base_are_dropped_after_it() {
    // `p` fails while `q` is assumed (`not q`).  Memoization turned off and
    // on again inside the nested level takes that level's context, `q`
    // included, as the fixed program, so the key of that failure leaves `q`
    // out.  Back at the outer level, without `q`, `p` has a proof: the key
    // must not be read there.
    let dir = TempDir::new("memobase");
    let f = dir.file("n.lolli", "p :- not q.\n");
    let (mut b, _) = backend(&[f], Answers::Take(1));
    b.input(":memo p");
    assert_eq!(
        b.input("q => top."),
        reply(vec![Output::Opened(1)], Next::Goal)
    );
    b.input(":memo off");
    b.input(":memo p");
    assert_eq!(b.input("p."), reply(vec![Output::No], Next::Goal));
    assert_eq!(b.input("pop."), reply(vec![Output::Closed(0)], Next::Goal));
    assert_eq!(b.input("p."), reply(vec![answer("yes")], Next::Goal));
}

#[test]
fn moves_reports_an_unknown_predicate_as_memo_does() {
    let dir = TempDir::new("moves-unknown");
    let f = dir.file("take.lolli", "take a.\ntake b.\n");
    let (mut b, _) = backend(&[f], Answers::Take(1));
    b.record_proofs();
    assert_eq!(b.input("take X."), reply(vec![answer("X = a")], Next::Goal));
    assert_eq!(
        b.input(":moves take/1").outputs,
        vec![Output::Text(
            "take a  consumed: none  assumed: none\n".into()
        )]
    );
    for (given, warning) in [
        (
            "nosuch",
            "warning[W008]: `nosuch` is given to :moves, but no clause defines it",
        ),
        (
            "take/2",
            "warning[W008]: `take/2` is given to :moves, but no clause defines `take` \
             with 2 arguments",
        ),
    ] {
        let Reply { outputs, .. } = b.input(&format!(":moves {given}"));
        assert!(
            matches!(&outputs[..], [Output::Warning(w), Output::Text(t)]
                if w.contains(warning)
                    && *t == format!("the last proof uses no clause of `{given}`\n")),
            "{outputs:?}"
        );
    }
    let Reply { outputs, .. } = b.input(":moves Take");
    assert!(
        matches!(&outputs[..], [Output::Error(e)]
            if e.contains("error[E002]: :moves Take: `Take` is not a predicate name")),
        "{outputs:?}"
    );
}

#[test]
fn a_proof_too_large_to_keep_is_not_kept_and_the_session_goes_on() {
    // The top level records every answer's proof for `:proof`; one of more
    // than `KEPT_PROOF_CELLS` term cells (a list of 200,000 numbers shown
    // in its step) is not built, and `:proof` and `:moves` say why.
    let (mut b, _) = backend(&[], Answers::Take(1));
    b.record_proofs();
    let Reply { outputs, next, .. } = b.input("findall X (between 1 200000 X) L, true.");
    assert_eq!(next, Next::Goal);
    assert!(
        matches!(&outputs[..], [Output::Answer(a)] if a.ends_with(":: 199999 :: 200000 :: nil")),
        "{outputs:?}"
    );
    let not_kept = Output::Text(format!(
        "the proof of the last answer was not kept: it has 3 steps and more than {} term \
         cells, more than the top level keeps (`lolli FILE --proof -e GOAL` prints it)\n",
        lolli::repl::backend::KEPT_PROOF_CELLS
    ));
    assert_eq!(b.input(":proof").outputs, vec![not_kept.clone()]);
    let Reply { outputs, .. } = b.input(":moves between");
    assert!(
        matches!(&outputs[..], [Output::Warning(w), t]
            if w.contains("warning[W008]: `between` is given to :moves, but it is a built-in")
                && *t == not_kept),
        "{outputs:?}"
    );
    // The next answer's proof is kept again.
    assert_eq!(
        b.input("findall X (between 1 2 X) L, true."),
        reply(vec![answer("L = 1 :: 2 :: nil")], Next::Goal)
    );
    assert_eq!(
        b.input(":proof").outputs,
        vec![Output::Text(
            "tensor findall X (between 1 2 X) (1 :: 2 :: nil), true\n  \
             builtin findall X (between 1 2 X) (1 :: 2 :: nil)\n  one\n"
                .into()
        )]
    );
    // A goal with no answer leaves no proof: not the one before it.
    assert_eq!(b.input("1 = 2."), reply(vec![Output::No], Next::Goal));
    assert_eq!(
        b.input(":proof").outputs,
        vec![Output::Text(
            "no proof to show: the last goal had no answer (proofs are kept for the last answer)\n"
                .into()
        )]
    );
}

#[test]
fn a_long_search_stops_recording_its_proof_and_runs_in_bounded_memory() {
    // A deterministic loop of 2,000,000 iterations makes several proof
    // steps each: far more than any proof the top level keeps.  Recording
    // stops past `KEPT_PROOF_CELLS` steps and the garbage collector, which
    // cannot run while a proof is recorded, takes over: the loop fits in
    // 150 MB (recording to the end took over 600 MB).
    if std::env::var_os("LOLLI_GC_STRESS").is_some() {
        // Collecting every 64 steps, each collection would scan the two
        // million cells the stopped log keeps alive: hours.  The
        // collector's part is checked under stress by tests/gc.rs.
        return;
    }
    let dir = TempDir::new("proof-limit");
    let f = dir.file(
        "loop.lolli",
        "loop I N :- I < N -> (J is I + 1, loop J N) | true.\n",
    );
    let files = std::slice::from_ref(&f);
    let mut b = Backend::new(limited(150), files, Answers::Take(1)).expect("loads");
    b.record_proofs();
    assert_eq!(
        b.input("loop 0 2000000."),
        reply(vec![answer("yes")], Next::Goal)
    );
    assert_eq!(
        b.input(":proof").outputs,
        vec![Output::Text(format!(
            "the proof of the last answer was not kept: its search went past {} steps, more \
             than the top level keeps (`lolli FILE --proof -e GOAL` prints it)\n",
            lolli::repl::backend::KEPT_PROOF_CELLS
        ))]
    );
    // The next goal is recorded again, and its proof kept.
    assert_eq!(b.input("loop 0 1."), reply(vec![answer("yes")], Next::Goal));
    assert_eq!(
        b.input(":proof").outputs,
        vec![Output::Text(format!(
            "atom loop 0 1   clause: {f}:1\n  \
             guard 0 < 1 -> (1 is 0 + 1, loop 1 1) | true\n    \
             builtin 0 < 1\n    \
             tensor 1 is 0 + 1, loop 1 1\n      \
             builtin 1 is 0 + 1\n      \
             atom loop 1 1   clause: {f}:1\n        \
             guard 1 < 1 -> (_1 is 1 + 1, loop _1 1) | true\n          \
             one\n",
            f = f.display()
        ))]
    );
}

#[test]
fn reload_keeps_memo_tracing_and_proof_recording() {
    let dir = TempDir::new("reload-settings");
    let f = dir.file("two.lolli", "p a.\np b.\n");
    let (mut b, _) = backend(&[f], Answers::Take(1));
    b.record_proofs();
    b.input(":memo p");
    assert_eq!(b.input("p X."), reply(vec![answer("X = a")], Next::Goal));
    b.input(":reload");
    // The proof shown is the new answer's, not the one before `:reload`.
    assert_eq!(b.input("p b."), reply(vec![answer("yes")], Next::Goal));
    let Reply { outputs, .. } = b.input(":proof");
    assert!(
        matches!(&outputs[..], [Output::Text(t)] if t.starts_with("atom p b ")),
        "{outputs:?}"
    );
    let Reply { outputs, .. } = b.input(":memo");
    assert!(
        matches!(&outputs[..], [Output::Text(t)] if t.starts_with("memoized: p\n")),
        "{outputs:?}"
    );
    b.input(":trace on");
    b.input(":reload");
    let Reply { outputs, .. } = b.input("p c.");
    assert_eq!(
        outputs,
        vec![
            Output::Text("call p c\nfail p c\n".into()),
            Output::No,
            Output::Note("note: no head of `p`'s 2 clauses can match `p c`\n".into())
        ]
    );
}

#[test]
fn a_stream_gets_each_answer_while_the_query_goes_on() {
    let dir = TempDir::new("stream");
    let f = dir.file("nat.lolli", "nat z.\nnat (s N) :- nat N.\n");
    let (mut b, _) = backend(&[f], Answers::Take(usize::MAX));
    let seen = Rc::new(RefCell::new(Vec::new()));
    let log = seen.clone();
    b.stream_answers(Some(Box::new(move |r: &Reply| {
        log.borrow_mut().extend(r.outputs.clone());
        // Stop the endless query after its fourth answer.
        log.borrow().len() < 4
    })));
    let r = b.input("nat X.");
    assert_eq!(
        r,
        Reply {
            outputs: vec![],
            next: Next::Goal,
            streamed: 4
        }
    );
    assert_eq!(
        *seen.borrow(),
        vec![
            answer("X = z"),
            answer("X = s z"),
            answer("X = s (s z)"),
            answer("X = s (s (s z))")
        ]
    );
    // With a limit, every answer but the last is streamed; the reply keeps
    // the last one (the query ends there).
    b.set_answers(Answers::Take(2));
    seen.borrow_mut().clear();
    let r = b.input("nat X.");
    assert_eq!(r.outputs, vec![answer("X = s z")]);
    assert_eq!(
        (r.streamed, seen.borrow().clone()),
        (1, vec![answer("X = z")])
    );
    // Without a stream the reply gathers them all.
    b.stream_answers(None);
    assert_eq!(
        b.input("nat X."),
        reply(vec![answer("X = z"), answer("X = s z")], Next::Goal)
    );
}

#[test]
fn limits_stop_a_search_that_returns_every_few_steps() {
    // `count` runs its goal answer by answer, and `between` answers every
    // step: the checks of the interrupt flag and the deadline are counted
    // across those short runs (they were never reached before, and neither
    // query stopped).
    let (mut b, _) = backend(&[], Answers::Ask);
    b.set_timeout(Some(std::time::Duration::from_millis(200)));
    let Reply { outputs, .. } = b.input("count (between 1 1000000000 X) N.");
    assert!(
        matches!(&outputs[..], [Output::Error(e)] if e.contains("time limit exceeded")),
        "{outputs:?}"
    );
    // A timeout too long for the clock is no deadline (it used to panic).
    b.set_timeout(Some(std::time::Duration::MAX));
    assert_eq!(b.input("true."), reply(vec![answer("yes")], Next::Goal));
    b.set_timeout(None);
    // Every answer streamed, one per step, until Ctrl-C.
    b.set_answers(Answers::Take(usize::MAX));
    let flag = b.interrupt_flag();
    let answers = Rc::new(RefCell::new(0usize));
    let seen = answers.clone();
    b.stream_answers(Some(Box::new(move |r: &Reply| {
        *seen.borrow_mut() += r.outputs.len();
        if *seen.borrow() == 1000 {
            flag.store(true, Ordering::Relaxed);
        }
        true
    })));
    let Reply {
        outputs, streamed, ..
    } = b.input("between 1 1000000000 X.");
    assert!(
        matches!(&outputs[..], [Output::Error(e)] if e.contains("interrupted")),
        "{outputs:?}"
    );
    assert!((1000..1000 + 4096).contains(&streamed), "{streamed}");
    assert_eq!(*answers.borrow(), streamed);
}

#[test]
fn the_unknown_predicate_hint_never_offers_a_fresh_symbol() {
    // `pred_1_` is how the `forall` constant prints once `pred_1` is a
    // name (LANGUAGE.md, section 2); typed, it names another constant.
    let (mut b, _) = backend(&[], Answers::Ask);
    assert_eq!(
        b.input("forall pred \\ (pred a => top)."),
        reply(vec![Output::Opened(1)], Next::Goal)
    );
    for name in ["pred_1", "pred_1_"] {
        let r = b.input(&format!("{name} a."));
        let [Output::Warning(w), Output::No] = r.outputs.as_slice() else {
            panic!("{r:?}");
        };
        let bar = "^".repeat(name.len() + 2);
        assert_eq!(
            *w,
            format!(
                "warning[W002]: `{name}` is called with 1 argument, but nothing defines it\n\
                 \x20 ┌─ <goal>:1:1\n\
                 \x20 │\n\
                 1 │ {name} a.\n\
                 \x20 │ {bar}\n\
                 \x20 │\n\
                 \x20 = no clause of the program or the context, no module and no assumption \
                 of the goal has a head `{name}` with 1 argument, and it is not a built-in: \
                 the call fails\n\n"
            )
        );
    }
}
