//! Look-ahead: a candidate fact of a call after which the next goal would
//! find nothing to match is passed over without being tried.  That may
//! change no answer and no order, with the clause's body run conjunct by
//! conjunct (a plan made when the clause was compiled) or copied whole
//! (with proofs, a body nesting to the right: the next goal is read from
//! the heap).

mod common;

use common::{all_answers, lolli_in, session, session_with, temp_dir, write_file};
use lolli::{Options, Session};
use pretty_assertions::assert_eq;

fn with_proofs() -> Options {
    Options {
        proofs: true,
        ..Options::default()
    }
}

/// Every answer of each goal against `program`, with proofs off and on
/// (the look-ahead's two paths), which must agree.
fn answers_both_ways(program: &str, goal: &str) -> Vec<String> {
    let mut runs = Vec::new();
    for (mut s, _) in [session(), session_with(with_proofs())] {
        s.load_str("test", program).expect("loads");
        runs.push(all_answers(&mut s, goal));
    }
    assert_eq!(runs[0], runs[1], "{goal}: proofs off and on disagree");
    runs.pop().unwrap()
}

const PROGRAM: &str = "
MODULE m.
LINEAR r a.
LINEAR r b.
LINEAR r c.
LINEAR r d.
LINEAR s b.
LINEAR s d.
t c.
u X :- X = d.
two X :- r X, s X.
dup X :- r X, r X.
then_rule X :- r X, t X.
then_var X :- r X, u X.
pair X Y :- r X, s Y.
nested X :- r X, w (f X) X.
w (f b) b.
w (f d) d.
compare X :- r X, X = c.
hidden X :- {r X, s X}.
q (f b).
applied F X :- r X, q (F X).
";

#[test]
fn answers_and_their_order_are_kept() {
    let cases: &[(&str, &[&str])] = &[
        ("two X, erase", &["X = b", "X = d"]),
        // The candidate itself is the only match of the next goal: kept,
        // and fails the usual way.
        ("dup X, erase", &[]),
        ("then_rule X, erase", &["X = c"]),
        // The next goal has a rule whose head is not ground: never passed over.
        ("then_var X, erase", &["X = d"]),
        // The next goal does not depend on the candidate.
        (
            "pair X Y, erase",
            &[
                "X = a, Y = b",
                "X = a, Y = d",
                "X = b, Y = b",
                "X = b, Y = d",
                "X = c, Y = b",
                "X = c, Y = d",
                "X = d, Y = b",
                "X = d, Y = d",
            ],
        ),
        // The next goal's key holds the candidate's argument inside a term.
        ("nested X, erase", &["X = b", "X = d"]),
        // The next goal is a built-in: no look-ahead.
        ("compare X, erase", &["X = c"]),
        // The next goal holds a variable application: `F X` is `f b`
        // with F = f and X = b, though its cells differ.
        ("F = f, applied F X, erase", &["F = f, X = b"]),
        // Inside `{}` the module's linear resources are hidden.
        ("hidden X, erase", &[]),
        // Resources assumed during the search count, and must be used.
        ("(s c -o two X), erase", &["X = c"]),
        ("(s c -o (r X, s X, erase))", &["X = b", "X = c", "X = d"]),
        ("(r e -o (r X, s X, erase))", &["X = b", "X = d"]),
    ];
    for (goal, expected) in cases {
        assert_eq!(answers_both_ways(PROGRAM, goal), *expected, "{goal}");
    }
}

#[test]
fn duplicates_are_counted_once_each() {
    let program = "MODULE m.\nLINEAR r a.\nLINEAR r a.\nLINEAR r b.\ndup X :- r X, r X.\n";
    assert_eq!(
        answers_both_ways(program, "dup X, erase"),
        ["X = a", "X = a"]
    );
}

#[test]
fn the_next_goal_s_resources_are_read_in_the_right_scope() {
    // `G1 & G2`: the second conjunct may use only what the first consumed.
    let program = "MODULE m.\nLINEAR r a.\nLINEAR r b.\nLINEAR s a.\nLINEAR s b.\n\
                   two X :- r X, s X.\n";
    assert_eq!(
        answers_both_ways(program, "(two X & (r Y, s Y)), erase"),
        ["X = a, Y = a", "X = b, Y = b"]
    );
    assert_eq!(
        answers_both_ways(program, "(two X & two Y), erase"),
        ["X = a, Y = a", "X = b, Y = b"]
    );
    assert_eq!(
        answers_both_ways(program, "(r X & two Y), erase"),
        Vec::<String>::new()
    );
}

/// The inferences `goal`'s first answer took.
fn inferences(s: &mut Session, goal: &str) -> u64 {
    let mut q = s.query(goal).expect("parses");
    q.next_answer().expect("runs").expect("an answer");
    q.machine().inferences
}

#[test]
fn candidates_the_next_goal_cannot_follow_are_not_tried() {
    // Five `r` facts, one `s`: without the look-ahead `r X` would be tried
    // with a, b, c and d before e (a module's clauses in file order), and
    // each try would call `s X` once; with it the call of `r X` takes e at
    // once.
    let program = "MODULE m.\nLINEAR r a.\nLINEAR r b.\nLINEAR r c.\nLINEAR r d.\n\
                   LINEAR r e.\nLINEAR s e.\ntwo X :- r X, s X.\n";
    for options in [Options::default(), with_proofs()] {
        let (mut s, _) = session_with(options);
        s.load_str("test", program).expect("loads");
        // `two X`, `r X`, `s e`.
        assert_eq!(inferences(&mut s, "two X, erase"), 3);
    }
}

#[test]
fn module_parameters_and_local_names_in_the_next_goal() {
    // The next goal's key holds a module parameter (bound when the module
    // is loaded) or a local name: values the plan reads when the call is
    // made.
    let dir = temp_dir("lookahead-module");
    write_file(
        &dir.join("pm.lolli"),
        "MODULE pm K.\nLOCAL loc.\nLINEAR r a.\nLINEAR r b.\nLINEAR r c.\n\
         LINEAR s K b.\nLINEAR s K d.\nLINEAR t loc c.\n\
         two X :- r X, s K X.\nthree X :- r X, t loc X.\nother X :- r X, s j X.\n",
    );
    let run = lolli_in(
        &dir,
        &[
            "--all",
            "-e",
            "pm k --o (two X, erase)",
            "-e",
            "pm k --o (three X, erase)",
            "-e",
            "pm k --o (other X, erase)",
            "-e",
            "pm k --o (r X, s k X, erase)",
        ],
        "",
        &[],
    );
    assert_eq!(run.stdout, "X = b\nX = c\nno\nX = b\n", "{}", run.stderr);
}

const NESTED: &str = "
MODULE nest.
LINEAR c z peg.
LINEAR c (s z) peg.
LINEAR c (f a b) peg.
LINEAR c (s (s z)) peg.
LINEAR d (s z).
LINEAR d a.
LINEAR e (f a).
two X :- c (s X) peg, d X.
pair X :- c (f X) peg, d X.
three F X :- e (F X), d X.
";

#[test]
fn variables_inside_the_call_s_arguments_are_followed() {
    // `X` in `c (s X) peg` is bound to a subterm of the candidate; a
    // candidate without that shape (`c z peg`, `c (f a b) peg` for
    // `c (f X) peg`) cannot match and is passed over too.  Inside a
    // variable application (`F X`) the place is not followed.
    let cases: &[(&str, &[&str])] = &[
        ("two X, erase", &["X = s z"]),
        ("pair X, erase", &[]),
        ("three F X, erase", &["F = f, X = a"]),
    ];
    for (goal, expected) in cases {
        assert_eq!(answers_both_ways(NESTED, goal), *expected, "{goal}");
    }
    // `two X`, `c (s X) peg`, `d (s z)`: `c (s z) peg`, tried first
    // without the look-ahead, would call `d z` in vain.
    for options in [Options::default(), with_proofs()] {
        let (mut s, _) = session_with(options);
        s.load_str("test", NESTED).expect("loads");
        assert_eq!(inferences(&mut s, "two X, erase"), 3);
    }
}

const CHAIN: &str = "
MODULE chain.
LINEAR r a.
LINEAR r b.
LINEAR r c.
LINEAR r d.
LINEAR s a.
LINEAR s b.
LINEAR s c.
LINEAR s d.
LINEAR t d.
chain X :- r X, s X, t X.
nested X :- r X, (s X, t X).
twice X :- r X, s X, s X.
q a :- write hi, nl.
q b.
u b.
noisy X :- r X, q X, u X.
";

#[test]
fn the_goal_after_the_next_is_checked_when_the_next_only_takes_a_fact() {
    // `s X` would take a ground fact for every candidate of `r X`, and `t X`
    // matches only d: a, b and c are passed over at the call of `r X`.
    assert_eq!(answers_both_ways(CHAIN, "chain X, erase"), ["X = d"]);
    assert_eq!(answers_both_ways(CHAIN, "nested X, erase"), ["X = d"]);
    // The goal after the next matches the fact the next one takes: kept,
    // and fails the usual way.
    assert_eq!(
        answers_both_ways(CHAIN, "twice X, erase"),
        Vec::<String>::new()
    );
    // `chain X`, `r X`, `s d`, `t d`; without this check, also `s a`,
    // `s b` and `s c`.
    let first = |options: &Options, goal: &str| {
        let (mut s, _) = session_with(options.clone());
        s.load_str("test", CHAIN).expect("loads");
        inferences(&mut s, goal)
    };
    for (options, nested) in [(Options::default(), 4), (with_proofs(), 10)] {
        assert_eq!(first(&options, "chain X, erase"), 4);
        // Unless proofs are recorded, `r X , (s X , t X)` runs as
        // `r X , s X , t X`.  With them, its body is copied whole (its
        // second `,` step comes after `r X`), and only the next goal is
        // checked: `r X` keeps all four candidates.  `s X` then has one
        // candidate, which is tried without a look-ahead: `nested X`,
        // `r X`, and `s a`, `t a` to `s d`, `t d`.
        assert_eq!(first(&options, "nested X, erase"), nested);
    }
}

#[test]
fn a_next_goal_that_runs_a_rule_is_run() {
    // `q a` runs a body (it writes), so the candidate a of `r X` is tried
    // although `u a` will fail: its output is there.
    let dir = temp_dir("lookahead-noisy");
    write_file(&dir.join("chain.lolli"), CHAIN);
    let run = lolli_in(&dir, &["chain.lolli", "-e", "noisy X, erase"], "", &[]);
    assert_eq!(run.stdout, "hi\nX = b\n", "{}", run.stderr);
}

const FIRST: &str = "
MODULE first.
LINEAR p a.
LINEAR p b.
LINEAR q b.
LINEAR r c.
m 1 :- p X, r X.
m 2 :- p X, q X.
m 3 :- r X, q X.
m 4 :- X = c, r X.
m 5 :- r X, r X.
n K :- p X, k K X.
k 1 b.
k 2 a.
";

#[test]
fn clauses_whose_first_call_would_find_nothing_are_passed_over() {
    // `m 1`: `p X` has a and b, but `r X` follows neither; `m 3`: `r c`
    // has no `q c` after it.  Both clauses are passed over when `m N`
    // chooses its clause.  `m 4` starts with a built-in and `m 5` with a
    // call whose only candidate the next goal needs again: both are tried.
    assert_eq!(answers_both_ways(FIRST, "m N, erase"), ["N = 2", "N = 4"]);
    // The first call shares no variable with the head in `n K` either,
    // whatever K is bound to.
    assert_eq!(answers_both_ways(FIRST, "n K, erase"), ["K = 2", "K = 1"]);
    assert_eq!(answers_both_ways(FIRST, "n 1, erase"), ["yes"]);
    // `m N`, `p X` (of `m 2`), `q b`: the `p X` of `m 1` is never called.
    for options in [Options::default(), with_proofs()] {
        let (mut s, _) = session_with(options);
        s.load_str("test", FIRST).expect("loads");
        assert_eq!(inferences(&mut s, "m N, erase"), 3);
    }
}

const HEAD: &str = "
MODULE head.
LINEAR c (f a b) peg.
LINEAR c (f a c) peg.
LINEAR c (f b b) peg.
LINEAR c (f c c) peg.
LINEAR c (g a) peg.
LINEAR d (f a c).
LINEAR d (f b b).
LINEAR d (f c c).
LINEAR e c.
two X :- c X peg, d X.
deep (h X) :- c (f X Y) peg, d (f X Y), e Y.
pair (p X Y) :- c (f X Y) peg, d (f X Y).
";

/// Every answer of `goal` against `program` with the look-ahead (proofs
/// off and on) and without it (a depth limit turns it off), which must
/// all agree.
fn answers_with_and_without_look_ahead(program: &str, goal: &str) -> Vec<String> {
    let with = answers_both_ways(program, goal);
    let (mut s, _) = session_with(Options {
        max_depth: Some(100_000),
        ..Options::default()
    });
    s.load_str("test", program).expect("loads");
    assert_eq!(
        all_answers(&mut s, goal),
        with,
        "{goal}: without the look-ahead"
    );
    with
}

#[test]
fn variables_of_the_head_in_the_call_are_read_from_the_candidate() {
    // `X` occurs in the head and in `c X peg`: whether the call binds it
    // or it was bound before (wholly, partly, to a variable twice), a
    // candidate that matches holds its value at its place, and one that
    // does not match fails whatever the next goal would find.
    let cases: &[(&str, &[&str])] = &[
        ("two X, erase", &["X = f a c", "X = f b b", "X = f c c"]),
        ("two (f a Y), erase", &["Y = c"]),
        ("two (f Z Z), erase", &["Z = b", "Z = c"]),
        ("two (g Z), erase", &[]),
        ("two (f b b), erase", &["yes"]),
        ("two (f a b), erase", &[]),
        ("deep (h W), erase", &["W = a", "W = c"]),
        ("deep (h c), erase", &["yes"]),
        ("deep (h b), erase", &[]),
        ("deep V, erase", &["V = h a", "V = h c"]),
        // The head leaves `X` and `Y` unbound (the clause's own first
        // call), one variable twice, or bound.
        ("pair P, erase", &["P = p a c", "P = p b b", "P = p c c"]),
        ("pair (p A A), erase", &["A = b", "A = c"]),
        (
            "pair (p A B), erase",
            &["A = a, B = c", "A = b, B = b", "A = c, B = c"],
        ),
        ("pair (p c B), erase", &["B = c"]),
    ];
    for (goal, expected) in cases {
        assert_eq!(
            answers_with_and_without_look_ahead(HEAD, goal),
            *expected,
            "{goal}"
        );
    }
}

/// `programs/<name>`'s text.
fn program(name: &str) -> String {
    std::fs::read_to_string(common::crate_root().join("programs").join(name)).expect("program")
}

/// `jump` of `n` moves as the seed's program writes it and as the
/// program that records the moves in the head writes it.
fn nat(n: usize) -> String {
    (0..n).fold("z".to_string(), |t, _| format!("(s {t})"))
}
fn moves(first: &str, n: usize) -> String {
    let mut t = "f".to_string();
    for i in (0..n).rev() {
        let m = if i == 0 {
            first.to_string()
        } else {
            format!("J{i}")
        };
        t = format!("(j {m} {t})");
    }
    format!("jump {t}")
}

#[test]
fn moves_recorded_in_the_head_are_searched_as_the_seed_s_moves() {
    // `jump (j (sw X Y) N) :- b X Y peg , ...`: the clauses whose first
    // call would find nothing are passed over before their heads are
    // matched, as in the seed's program, and the moves are taken the same
    // way: the same inferences for the same search.
    let triangle = program("solitaire.lolli");
    let recorded = program("solitaire2.lolli");
    for n in [1, 2, 4] {
        let (mut seed, _) = session();
        seed.load_str("seed", &triangle).expect("loads");
        let (mut moves_kept, _) = session();
        moves_kept.load_str("moves", &recorded).expect("loads");
        assert_eq!(
            inferences(&mut moves_kept, &moves("J0", n)),
            inferences(&mut seed, &format!("jump {}", nat(n))),
            "{n} jumps"
        );
    }
    // Every game of three jumps, and those whose first move is given
    // (the head then binds the first call's variables) or given in part.
    for (first, games) in [
        ("J0", 26),
        ("(ne (s (s (s (s z)))) (s z))", 13),
        ("(ne X0 (s z))", 13),
        ("(sw z z)", 0),
    ] {
        let goal = moves(first, 3);
        let found = answers_with_and_without_look_ahead(&recorded, &goal);
        assert_eq!(found.len(), games, "{goal}");
    }
}
