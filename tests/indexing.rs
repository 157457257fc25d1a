//! Clause selection by the first argument's principal symbol: a candidate
//! whose head cannot match the call's first argument is passed over, and a
//! call left with one candidate leaves no choice point.  Neither may change
//! an answer or its order.

mod common;

use std::cell::RefCell;
use std::rc::Rc;

use common::{all_answers, answers, session};
use lolli::engine::trace::{TraceEvent, TraceKind, Tracer};
use pretty_assertions::assert_eq;

/// First arguments of every shape: a constant, compounds of two arities, a
/// variable, an integer, a string, a name that is also a functor.
const SHAPES: &str = "
p a 1.
p (f X) 2.
p X 3.
p (f a b) 4.
p 7 5.
p \"s\" 6.
p f 7.
";

#[test]
fn every_matching_clause_is_tried_in_order() {
    let cases: &[(&str, &[&str])] = &[
        ("p a N", &["N = 1", "N = 3"]),
        ("p (f b) N", &["N = 2", "N = 3"]),
        ("p (f a b) N", &["N = 3", "N = 4"]),
        ("p 7 N", &["N = 3", "N = 5"]),
        ("p \"s\" N", &["N = 3", "N = 6"]),
        ("p f N", &["N = 3", "N = 7"]),
        ("p (g Y) N", &["N = 3"]),
        ("p 8 N", &["N = 3"]),
        (
            "p X N",
            &[
                "X = a, N = 1",
                "X = f _1, N = 2",
                "N = 3",
                "X = f a b, N = 4",
                "X = 7, N = 5",
                "X = \"s\", N = 6",
                "X = f, N = 7",
            ],
        ),
    ];
    for (goal, expected) in cases {
        assert_eq!(answers(SHAPES, goal), *expected, "{goal}");
    }
}

#[test]
fn a_variable_application_is_matched_by_what_it_denotes() {
    // `F b` is `$apply F b`: with F = f it is `f b`, with F = f a it is
    // `f a b`; the filter must not judge it by its own functor.
    assert_eq!(
        answers(SHAPES, "F = f, p (F b) N"),
        ["F = f, N = 2", "F = f, N = 3"]
    );
    assert_eq!(
        answers(SHAPES, "F = f a, p (F b) N"),
        ["F = f a, N = 3", "F = f a, N = 4"]
    );
}

#[test]
fn a_ground_variable_application_is_found_by_key_among_many_clauses() {
    // With more than a few clauses the index picks them by key; `F a` with
    // F = f must find `q (f a)`, though its cells are `$apply f a`.
    let program = "q (f a).\nq (g 1).\nq (g 2).\nq (g 3).\nq (g 4).\nq (g 5).\n\
                   q (g 6).\nq (g 7).\nq (g 8).\nq (g 9).\nq (h (f a)).\n";
    assert_eq!(answers(program, "F = f, q (F a)"), ["F = f"]);
    assert_eq!(answers(program, "F = f, q (h (F a))"), ["F = f"]);
    assert_eq!(answers(program, "F = g, X = 3, q (F X)"), ["F = g, X = 3"]);
}

#[test]
fn an_unbound_variable_application_matches_by_currying() {
    // `F b` against `f X` gives F = f; against `f a b`, F = f a; it can be
    // no constant.  Program clauses with variables and ground facts alike.
    assert_eq!(
        answers(SHAPES, "p (F b) N"),
        ["F = f, N = 2", "N = 3", "F = f a, N = 4"]
    );
}

#[test]
fn assumed_clauses_and_fresh_constants_are_selected_too() {
    // A clause of two alternatives, newest first; a resource naming a
    // `forall` constant.
    assert_eq!(
        answers(SHAPES, "(p b 8 & p c 9) => p c N"),
        ["N = 9", "N = 3"]
    );
    assert_eq!(
        answers(SHAPES, "forall c\\ ((p c 10 , p d 11) -o (p c N , erase))"),
        ["N = 10", "N = 3"]
    );
}

/// Collects the kinds of the trace events.
struct Kinds(Rc<RefCell<Vec<TraceKind>>>);

impl Tracer for Kinds {
    fn event(&mut self, event: TraceEvent) {
        self.0.borrow_mut().push(event.kind);
    }
}

/// The answers of `goal` and the number of retries (`redo` events) the
/// search made.
fn retries(program: &str, goal: &str) -> (Vec<String>, usize) {
    let (mut s, _) = session();
    s.load_str("test", program).expect("the program loads");
    let kinds = Rc::new(RefCell::new(Vec::new()));
    s.machine.tracer = Some(Box::new(Kinds(kinds.clone())));
    let found = all_answers(&mut s, goal);
    let redo = kinds
        .borrow()
        .iter()
        .filter(|k| **k == TraceKind::Redo)
        .count();
    (found, redo)
}

#[test]
fn a_call_with_one_matching_clause_leaves_no_choice_point() {
    // The clause for lists comes first, so without looking at the first
    // argument every call would keep a choice point for `len nil 0`, and
    // the failure of `N > 5` would retry each of them.
    let len = "len (_ :: T) N :- len T M, N is M + 1.\nlen nil 0.\n";
    assert_eq!(
        retries(len, "len (a :: b :: nil) N"),
        (vec!["N = 2".into()], 0)
    );
    assert_eq!(retries(len, "len (a :: b :: nil) N, N > 5"), (vec![], 0));
    // With the first argument unknown both clauses stay candidates.
    let colour = "colour red.\ncolour green.\n";
    assert_eq!(
        retries(colour, "colour X, X = green"),
        (vec!["X = green".into()], 1)
    );
}

#[test]
fn a_call_whose_other_candidates_are_used_up_leaves_no_choice_point() {
    // `coin X` takes `coin a`; the only other candidate, `coin b`, was
    // consumed before the call, so nothing is left to retry when `fail`
    // sends the search back (the candidates of a small bucket are decided
    // when the call is made).
    let coins = "purse.\n";
    assert_eq!(
        retries(coins, "(coin a, coin b) -o (coin b, coin X, fail)"),
        (vec![], 0)
    );
    // With an unused candidate left, the call is retried once.
    assert_eq!(
        retries(coins, "(coin a, coin b) -o (coin X, fail)"),
        (vec![], 1)
    );
}

#[test]
fn what_a_query_adds_to_the_index_is_forgotten_when_it_ends() {
    // Each level assumes a resource with a key of its own: a bucket pair
    // per key while the query runs, none left after it.
    let program = "deep 0.\ndeep N :- N > 0, M is N - 1, (level N -o (deep M, level N)).\n";
    let (mut s, _) = session();
    s.load_str("test", program).expect("the program loads");
    let before = s.machine.ctx.bucket_count();
    for n in [500, 700, 500] {
        let goal = format!("deep {n}");
        assert_eq!(all_answers(&mut s, &goal), ["yes"], "{goal}");
        assert_eq!(s.machine.ctx.bucket_count(), before, "after {goal}");
    }
    // Clauses added between queries stay indexed.
    s.add_clause("level 7").expect("adds");
    assert_eq!(all_answers(&mut s, "level 7"), ["yes"]);
    assert_eq!(
        all_answers(&mut s, "level 7 -o (level X, level Y)"),
        ["X = 7, Y = 7", "X = 7, Y = 7"]
    );
}

#[test]
fn keys_kept_over_backtracking_stay_bounded() {
    // Each answer assumes a resource with a key of its own, and the next
    // backtracks over it (the `;` keeps the scope from being dropped when
    // it ends).  Backtracking keeps the keys it could drop while the index
    // is small (the search may meet them again), but no more than a bound:
    // 30,000 keys come and go, with four buckets each.  `item` is first
    // indexed during the query, after `between`'s choice point: its own
    // buckets stay, its keys' go.
    let (mut s, _) = session();
    s.load_str("test", "probe K :- item K -o (item K , (true ; fail)).\n")
        .expect("the program loads");
    let before = s.machine.ctx.bucket_count();
    let mut most = 0;
    {
        let mut q = s.query("between 1 30000 K, probe K").expect("a goal");
        for k in 1..=30000 {
            let a = q.next_answer().expect("no error").expect("an answer");
            assert_eq!(a.to_string(), format!("K = {k}"));
            most = most.max(q.machine().ctx.bucket_count());
        }
    }
    assert!(most > before && most < 10_000, "{before} .. {most} buckets");
    assert_eq!(s.machine.ctx.bucket_count(), before, "after the query");
}
