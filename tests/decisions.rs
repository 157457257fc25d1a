//! The look-ahead's decisions recorded by position: a position met again
//! along another path recalls what was decided there, with the same
//! answers, in the same order, and the same inferences counted as when
//! every decision is made afresh (`Options::no_lookahead_record`).

mod common;

use common::{session_with, Capture};
use lolli::{Options, Session};
use pretty_assertions::assert_eq;

fn nat(n: usize) -> String {
    let mut t = "z".to_string();
    for _ in 0..n {
        t = format!("(s {t})");
    }
    t
}

fn options(record: bool) -> Options {
    Options {
        no_lookahead_record: !record,
        ..Options::default()
    }
}

/// A session with the record on or off and `load` done on it.
fn loaded(record: bool, load: &dyn Fn(&mut Session)) -> (Session, Capture) {
    let (mut s, cap) = session_with(options(record));
    load(&mut s);
    (s, cap)
}

/// The answers of `goal` (the first `limit`), what it printed, and the
/// inferences it took.
fn run(s: &mut Session, cap: &Capture, goal: &str, limit: usize) -> (Vec<String>, String, u64) {
    let before = s.machine.inferences;
    let mut answers = Vec::new();
    {
        let mut q = s.query(goal).unwrap_or_else(|e| panic!("{goal}: {e:?}"));
        while answers.len() < limit {
            match q.next_answer() {
                Ok(Some(a)) => answers.push(a.to_string()),
                Ok(None) => break,
                Err(e) => {
                    answers.push(format!("error: {e:?}"));
                    break;
                }
            }
        }
    }
    let printed = std::mem::take(&mut *cap.out.borrow_mut());
    (answers, printed, s.machine.inferences - before)
}

/// Run each goal with the record on and off: answers, output and
/// inferences must agree.  Returns the record's figures of each goal.
fn agree(name: &str, load: &dyn Fn(&mut Session), goals: &[(&str, usize)]) -> Vec<(u64, u64)> {
    let (mut on, cap_on) = loaded(true, load);
    let (mut off, cap_off) = loaded(false, load);
    let mut figures = Vec::new();
    for &(goal, limit) in goals {
        let with = run(&mut on, &cap_on, goal, limit);
        let (made, recalled, _) = on.machine.lookahead_record();
        let without = run(&mut off, &cap_off, goal, limit);
        assert_eq!(with, without, "{name}: {goal}");
        assert_eq!(off.machine.lookahead_record().0, 0, "{name}: {goal}");
        figures.push((made, recalled));
    }
    figures
}

fn file(path: &'static str) -> impl Fn(&mut Session) {
    move |s: &mut Session| {
        let at = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
        if let Err(e) = s.load_file(&at) {
            panic!("{path} did not load: {e:?}");
        }
    }
}

fn text(program: &'static str) -> impl Fn(&mut Session) {
    move |s: &mut Session| {
        if let Err(e) = s.load_str("test", program) {
            panic!("program did not load: {e:?}");
        }
    }
}

#[test]
fn the_triangle_recalls_most_decisions_and_answers_alike() {
    let eight = format!("jump {}", nat(8));
    let figures = agree(
        "centre",
        &file("bench/centre.lolli"),
        &[(&eight, usize::MAX), ("jump (s (s (s z)))", usize::MAX)],
    );
    // 5,508 games of eight jumps: positions recur along other orders of
    // the same jumps, and most decisions are recalled.
    let (made, recalled) = figures[0];
    assert!(made > 0 && recalled > 2 * made, "{figures:?}");
    let thirteen = format!("jump {}", nat(13));
    let figures = agree(
        "solitaire",
        &file("programs/solitaire.lolli"),
        &[(&thirteen, 1), ("jump (s (s (s (s z))))", usize::MAX)],
    );
    assert!(figures[0].1 > 0, "{figures:?}");
}

#[test]
fn decisions_at_calls_after_built_ins_are_recorded_and_answer_alike() {
    // The triangle counting its jumps with integers: each clause begins
    // with `K > 0 , N is K - 1`, so no clause is looked into before it is
    // tried, and `b X Y peg`'s candidates are decided when it is called.
    // That call holds no variable of the clause before it: its candidates,
    // and what the look-ahead keeps of them, depend on the position alone,
    // and are recorded by position too.
    let source = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("programs/solitaire.lolli"),
    )
    .expect("readable")
    .replace("jump (s N) :-", "jump K :- K > 0 , N is K - 1 ,")
    .replace("jump z :- erase.", "jump 0 :- erase.");
    assert_eq!(source.matches("N is K - 1").count(), 6);
    let load = move |s: &mut Session| {
        if let Err(e) = s.load_str("test", &source) {
            panic!("the program did not load: {e:?}");
        }
    };
    let figures = agree("counted", &load, &[("jump 13", 1), ("jump 8", usize::MAX)]);
    for (made, recalled) in &figures {
        assert!(*made > 0 && *recalled > 2 * made, "{figures:?}");
    }
}

#[test]
fn every_sample_program_answers_alike() {
    // Each program's sample goals (`%?` first answer, `%*` all), as the
    // program tests run them.
    let mut checked = 0;
    for path in common::sample_programs() {
        let source = std::fs::read_to_string(&path).expect("readable");
        let goals: Vec<(String, usize)> = common::sample_goals(&source)
            .into_iter()
            .filter(|g| !(g.release_only && cfg!(debug_assertions)))
            .map(|g| (g.goal, if g.all { usize::MAX } else { 1 }))
            .collect();
        let goals: Vec<(&str, usize)> = goals.iter().map(|(g, n)| (g.as_str(), *n)).collect();
        let p = path.clone();
        let load = move |s: &mut Session| {
            if let Err(e) = s.load_file(&p) {
                panic!("{} did not load: {e:?}", p.display());
            }
        };
        agree(&path.display().to_string(), &load, &goals);
        checked += goals.len();
    }
    assert!(checked > 20, "{checked} goals");
}

/// Positions met inside and outside a `{G}` scope (where no linear
/// resource is usable), after an `erase` scope, with consumed resources
/// between, and with an unbounded clause assumed during the search.
const SCOPES: &str = "
MODULE scopes.
LINEAR tok a.
LINEAR tok b.
LINEAR tok c.
pair :- tok X , tok Y , X = Y.
two :- tok X , tok Y.
first X :- tok X , erase.
inside :- {two}.
take_then G :- tok X , G.
with_rule :- (tok d :- true) => (two , two).
LINEAR mark a.
marked :- tok X , mark X , seen X.
seen X :- write X , nl.
";

#[test]
fn scopes_and_assumed_clauses_answer_alike() {
    agree(
        "scopes",
        &text(SCOPES),
        &[
            ("pair ; two , tok Z", usize::MAX),
            ("inside ; two , erase", usize::MAX),
            ("(two , inside) ; (first X)", usize::MAX),
            ("take_then two ; take_then inside ; erase", usize::MAX),
            ("two & (tok a , erase)", usize::MAX),
            ("with_rule , erase", usize::MAX),
            ("(tok e -o two) , erase", usize::MAX),
            ("forall x \\ (tok x -o (two , two))", usize::MAX),
            // A clause of `mark`, which the decisions about `marked`
            // look at, left out of the names (not ground): in scope on
            // some paths and not on others, in the same positions, it
            // comes and goes by backtracking.
            (
                "(marked ; ((mark Q :- true) => marked)) , erase",
                usize::MAX,
            ),
            (
                "(((mark Q :- true) => marked) ; marked) , erase",
                usize::MAX,
            ),
            ("((mark Q :- true) => marked) , marked , erase", usize::MAX),
            (
                "(marked , ((mark Q :- true) => marked)) ; (marked , erase)",
                usize::MAX,
            ),
            ("((mark Q :- Q = b) => marked) ; marked ; erase", usize::MAX),
        ],
    );
}

#[test]
fn the_figures_are_printed_with_stats() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_lolli"))
        .args([
            "--count",
            "--stats",
            "bench/centre.lolli",
            "-e",
            &format!("jump {}", nat(6)),
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("the binary runs");
    let err = String::from_utf8_lossy(&out.stderr);
    let line = err
        .lines()
        .find(|l| l.starts_with("% look-ahead record: "))
        .unwrap_or_else(|| panic!("no figures in {err}"));
    let numbers: Vec<u64> = line.split(' ').filter_map(|w| w.parse().ok()).collect();
    assert!(
        numbers.len() == 2 && numbers[0] > 0 && numbers[1] > 0,
        "{line}"
    );
    // A program without a clause to look into prints no such line.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_lolli"))
        .args(["--stats", "-e", "X = 1"])
        .output()
        .expect("the binary runs");
    assert!(!String::from_utf8_lossy(&out.stderr).contains("look-ahead"));
}

/// A census of the 10-hole triangle written as `bench/census.lolli` writes
/// it: `pegs P` is assumed with `P` unbound for the whole search, a clause
/// that the positions' names leave out, but that no decision about `b`
/// looks at.
const CENSUS10: &str = "
MODULE census10.
LINEAR b z z empty.
LINEAR b (s z) z peg.
LINEAR b (s z) (s z) peg.
LINEAR b (s (s z)) z peg.
LINEAR b (s (s z)) (s z) peg.
LINEAR b (s (s z)) (s (s z)) peg.
LINEAR b (s (s (s z))) z peg.
LINEAR b (s (s (s z))) (s z) peg.
LINEAR b (s (s (s z))) (s (s z)) peg.
LINEAR b (s (s (s z))) (s (s (s z))) peg.
jump (s N) :- b X Y peg , b (s X) Y peg , b (s (s X)) Y empty ,
  ((b X Y empty , b (s X) Y empty , b (s (s X)) Y peg) -o jump N).
jump (s N) :- b X Y peg , b (s X) (s Y) peg , b (s (s X)) (s (s Y)) empty ,
  ((b X Y empty , b (s X) (s Y) empty , b (s (s X)) (s (s Y)) peg) -o jump N).
jump (s N) :- b X Y peg , b X (s Y) peg , b X (s (s Y)) empty ,
  ((b X Y empty , b X (s Y) empty , b X (s (s Y)) peg) -o jump N).
jump (s N) :- b (s (s X)) Y peg , b (s X) Y peg , b X Y empty ,
  ((b (s (s X)) Y empty , b (s X) Y empty , b X Y peg) -o jump N).
jump (s N) :- b (s (s X)) (s (s Y)) peg , b (s X) (s Y) peg , b X Y empty ,
  ((b (s (s X)) (s (s Y)) empty , b (s X) (s Y) empty , b X Y peg) -o jump N).
jump (s N) :- b X (s (s Y)) peg , b X (s Y) peg , b X Y empty ,
  ((b X (s (s Y)) empty , b X (s Y) empty , b X Y peg) -o jump N).
jump N :- game_over N.
game_over probe :- erase.
game_over N :- int N K , (jump (s probe) -> fail | true) ,
   P is K + 1 , pegs P , erase.
census P :- pegs P => jump (s (s (s (s (s (s (s (s z)))))))).
int z 0.
int (s N) K :- int N J , K is J + 1.
";

#[test]
fn a_clause_left_out_of_the_names_does_not_stop_the_record() {
    let figures = agree("census10", &text(CENSUS10), &[("census P", usize::MAX)]);
    let (made, recalled) = figures[0];
    assert!(made > 0 && recalled > made, "{figures:?}");
    // The same census with the unbound `pegs P` looked at by the
    // decisions: a clause of `b` that is not ground keeps every decision
    // from being recorded, and the answers are the same.
    let looked_at = CENSUS10.replace(
        "census P :- pegs P =>",
        "census P :- (pegs P , (b Q R peg :- fail)) =>",
    );
    let looked_at: &'static str = Box::leak(looked_at.into_boxed_str());
    let figures = agree(
        "census10, b looked at",
        &text(looked_at),
        &[("census P", usize::MAX)],
    );
    assert_eq!(figures[0], (0, 0));
}

/// `bench/centre.lolli` with a history of the moves as a linear resource,
/// `hist L`, taken and assumed again longer at each jump: every context
/// of the search is new, and soon has too many distinct terms to be named.
fn centre_with_history() -> String {
    let text = std::fs::read_to_string(common::crate_root().join("bench/centre.lolli"))
        .expect("bench/centre.lolli reads");
    let text = text.replace("MODULE centre.", "MODULE history.\nLINEAR hist nil.");
    assert_eq!(text.matches("((b ").count(), 6, "six jump clauses");
    let text = text.replace("((b ", "hist H , ((b ");
    let text = text.replace(
        ")\n           -o jump N)",
        " , hist (X :: Y :: H))\n           -o jump N)",
    );
    assert_eq!(
        text.matches("hist (X :: Y :: H)").count(),
        6,
        "six histories"
    );
    text
}

#[test]
fn a_record_that_does_not_pay_stops_and_answers_alike() {
    // The record stops after its trial (fewer decisions recalled than
    // tried), and with it the sums behind names, in the middle of the
    // search: backtracking then returns to choice points made while they
    // were kept.  Answers, output and inferences are those without the
    // record, and the counts those of the same moves without a history.
    let program = centre_with_history();
    let load = |s: &mut Session| {
        if let Err(e) = s.load_str("history", &program) {
            panic!("program did not load: {e:?}");
        }
    };
    let five = format!("jump {}", nat(5));
    let figures = agree("history", &load, &[(&five, usize::MAX), (&five, 3)]);
    assert!(
        figures.iter().all(|&(_, recalled)| recalled == 0),
        "{figures:?}"
    );
    // What `--stats` says, and the count.
    let dir = common::temp_dir("history");
    let file = dir.join("history.lolli");
    common::write_file(&file, &program);
    let file = file.to_str().expect("a UTF-8 path");
    // (On one worker: the record's figures are those of one record.)
    let run = common::lolli(&["-j", "1", "--stats", "--count", file, "-e", &five]);
    let plain = common::lolli(&["--count", "bench/centre.lolli", "-e", &five]);
    assert_eq!((run.code, &run.stdout), (0, &plain.stdout));
    assert_eq!(plain.stdout, "194\n");
    assert!(
        run.stderr.contains(" 0 recalled (turned off)\n"),
        "{}",
        run.stderr
    );
    // With a memoized predicate the record stops but the sums stay.
    let memo = common::lolli(&["--stats", "--memo", "jump", "--count", file, "-e", &five]);
    assert_eq!((memo.code, &memo.stdout), (0, &plain.stdout));
    assert!(memo.stderr.contains("(turned off)"), "{}", memo.stderr);
}

/// Peg solitaire on a line, with a hole holding two pegs (a take of the
/// move then has two candidate facts, and backtracking comes back to it
/// after the move's assumption) and a rule that makes a hole empty (a
/// candidate that is no fact).
const LINE: &str = "
MODULE line.
LINEAR at z peg.
LINEAR at (p z) peg.
LINEAR at (p z) peg.
LINEAR at (p (p z)) empty.
LINEAR at (p (p (p z))) peg.
LINEAR at (p (p (p (p z)))) peg.
LINEAR at (p (p (p (p (p z))))) empty.
at (p (p (p (p (p (p z)))))) empty :- true.
go (s N) :- at X peg , at (p X) peg , at (p (p X)) empty ,
    ((at X empty , at (p X) empty , at (p (p X)) peg) -o go N).
go (s N) :- at (p (p X)) peg , at (p X) peg , at X empty ,
    ((at (p (p X)) empty , at (p X) empty , at X peg) -o go N).
go z :- erase.
";

#[test]
fn the_facts_a_move_assumes_are_named_alike_when_met_again() {
    // A move's assumed facts are named by the move and the term of the
    // candidate its first call took, once found (debug builds check each
    // such name against the one the facts' terms give).  The answers
    // are those without the record, and those with MEMO.
    let goals: Vec<(String, usize)> = (1..=4)
        .map(|n| (format!("go {}", nat(n)), usize::MAX))
        .chain([(format!("go {}", nat(3)), 2)])
        .collect();
    let goals: Vec<(&str, usize)> = goals.iter().map(|(g, n)| (g.as_str(), *n)).collect();
    agree("line", &text(LINE), &goals);
    let memo: &'static str = Box::leak(
        LINE.replace("MODULE line.", "MODULE line.\nMEMO go.")
            .into_boxed_str(),
    );
    let (mut plain, cap_plain) = loaded(true, &text(LINE));
    let (mut memoized, cap_memo) = loaded(true, &text(memo));
    // A table of two keys: the terms are numbered afresh all the time.
    let (mut tiny, cap_tiny) = loaded(true, &text(memo));
    tiny.machine.memo.limit = 2;
    for &(goal, limit) in &goals {
        let a = run(&mut plain, &cap_plain, goal, limit);
        let b = run(&mut memoized, &cap_memo, goal, limit);
        let c = run(&mut tiny, &cap_tiny, goal, limit);
        assert_eq!((&a.0, &a.1), (&b.0, &b.1), "MEMO: {goal}");
        assert_eq!((&a.0, &a.1), (&c.0, &c.1), "MEMO, two keys: {goal}");
    }
    // The proofs of 1 to 4 jumps (each peg of hole 1 gives its own).
    let counts: Vec<usize> = goals[..4]
        .iter()
        .map(|&(goal, limit)| run(&mut plain, &cap_plain, goal, limit).0.len())
        .collect();
    assert_eq!(counts, [4, 10, 14, 6]);
}

/// A line of holes whose jumps are moves (`h X peg , h (s X) peg , h (s
/// (s X)) empty` then the assumption), with a fact twice and one that is
/// unbounded: a take whose lookup gives two candidates is made the usual
/// way, one that gives one is made from the fact it found before.
const HOLES: &str = "
MODULE line.
LINEAR h z peg.
LINEAR h (s z) peg.
LINEAR h (s (s z)) empty.
LINEAR h (s (s (s z))) peg.
LINEAR h (s (s (s (s z)))) peg.
LINEAR h (s (s (s (s z)))) peg.
LINEAR h (s (s (s (s (s z))))) empty.
h (s (s (s (s (s (s z)))))) peg.
LINEAR h (s (s (s (s (s (s (s z))))))) empty.
jump (s N) :- h X peg , h (s X) peg , h (s (s X)) empty ,
   ((h X empty , h (s X) empty , h (s (s X)) peg) -o jump N).
jump (s N) :- h (s (s X)) peg , h (s X) peg , h X empty ,
   ((h (s (s X)) empty , h (s X) empty , h X peg) -o jump N).
jump z :- erase.
twice N :- jump N , jump N.
ruled N :- (h (s z) peg :- true) => jump N.
";

#[test]
fn the_takes_of_moves_are_made_alike_from_known_facts() {
    let goals: Vec<String> = (1..=4)
        .flat_map(|n| {
            [
                format!("jump {}", nat(n)),
                format!("twice {}", nat(n)),
                format!("ruled {}", nat(n)),
            ]
        })
        .collect();
    let goals: Vec<(&str, usize)> = goals.iter().map(|g| (g.as_str(), usize::MAX)).collect();
    agree("line", &text(HOLES), &goals);
    let (mut on, cap) = loaded(true, &text(HOLES));
    let (answers, _, _) = run(&mut on, &cap, &format!("jump {}", nat(3)), usize::MAX);
    assert!(!answers.is_empty());
    assert!(on.machine.known_takes > 0, "no take made from a known fact");

    let eight = format!("jump {}", nat(8));
    agree(
        "centre",
        &file("bench/centre.lolli"),
        &[(&eight, usize::MAX)],
    );
    let (mut on, cap) = loaded(true, &file("bench/centre.lolli"));
    let (answers, _, inferences) = run(&mut on, &cap, &eight, usize::MAX);
    // 5,508 games of eight jumps end with the last pegs' hole filled.
    assert_eq!(answers.len(), 5508);
    // Two takes a move, most of them from facts met before.
    assert!(
        on.machine.known_takes * 4 > inferences,
        "{} of {inferences}",
        on.machine.known_takes
    );
}

/// A walk whose every step is a move over new terms: each step consumes
/// `c X` and `d X` and assumes `c (s X)` and `d (s X)`.  No position
/// recurs, so the look-ahead's record would stop itself; `MEMO step` keeps
/// the sums that name moves' facts (no `step` call fails, so the table
/// stays empty).  `again` walks four times, the last time after assuming
/// `extra k`, whose keys take the bucket numbers the walk's keys had
/// before.  The program's `big` facts (added by the test) make more
/// index buckets than backtracking keeps (8,192), so that coming back
/// from a walk forgets the keys the walk made.
const WALK: &str = "
MODULE walk.
MEMO step.
LINEAR c z.
LINEAR d z.
step z :- erase.
step (s N) :- c X , d X , ((c (s X) , d (s X)) -o step N).
again N :- (step N , fail ; true) , (step N , fail ; true) , (step N , fail ; true) ,
  (extra k -o step N).
";

#[test]
fn moves_over_forgotten_keys_find_their_buckets_again() {
    // The first walk learns each move's facts and take; the second takes
    // from what it learnt and keeps the buckets it scans, and keeps the
    // facts' keys; the third assumes the facts from those keys and keeps
    // the buckets they join; the last meets both after backtracking
    // forgot those buckets and other keys took their numbers, and finds
    // them again.  Debug builds check every kept bucket against a lookup.
    let mut program = WALK.to_string();
    for k in 0..2100 {
        program.push_str(&format!("big k{k}.\n"));
    }
    let load = move |s: &mut Session| {
        if let Err(e) = s.load_str("walk", &program) {
            panic!("the walk did not load: {e:?}");
        }
    };
    let walk = format!("again {}", nat(40));
    let (mut s, cap) = loaded(true, &load);
    assert!(
        s.machine.ctx.bucket_count() > 8192,
        "{}",
        s.machine.ctx.bucket_count()
    );
    let (answers, _, _) = run(&mut s, &cap, &walk, usize::MAX);
    assert_eq!(answers, vec!["yes".to_string()]);
    // The last three walks take from known facts.
    assert!(s.machine.known_takes >= 3 * 40, "{}", s.machine.known_takes);
    // The same walks with moves made the usual way (a depth limit turns
    // the known takes off) answer the same.
    let (mut plain, cap) = session_with(Options {
        max_depth: Some(1_000_000),
        ..Options::default()
    });
    load(&mut plain);
    let (answers, _, _) = run(&mut plain, &cap, &walk, usize::MAX);
    assert_eq!(answers, vec!["yes".to_string()]);
    assert_eq!(plain.machine.known_takes, 0);
}
