//! Clause bodies `G1 , ... , Gn` are pushed as separate goals whose copies
//! are made when each is first reached and kept when search backtracks into
//! an earlier conjunct (the engine's deferred conjuncts).  These programs
//! exercise that: variables that first occur in a later conjunct and are
//! bound differently after each retry, nested and variable conjuncts,
//! assumptions, `erase`, and a conjunct larger than one reserved run of
//! cells.  Each answer list is written out by hand, and must also be what a
//! session recording proofs gives (there the `,` steps' proof nodes are
//! made when the conjuncts are pushed, and a body nesting to the right,
//! whose later steps come after its first conjunct, is copied whole).

mod common;

use common::{all_answers, answers, session_with};
use lolli::Options;
use pretty_assertions::assert_eq;

/// The answers of `goal`, checked against a session that records proofs.
fn both(program: &str, goal: &str) -> Vec<String> {
    let plain = answers(program, goal);
    let (mut s, _) = session_with(Options {
        proofs: true,
        ..Options::default()
    });
    s.load_str("test", program).expect("the program loads");
    assert_eq!(all_answers(&mut s, goal), plain, "with proofs: {goal}");
    plain
}

fn strs(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

const NUMBERS: &str = "
n 1.  n 2.  n 3.
big Z :- Z > 3.
pair X Y :- n X , n Y , X < Y , Z is X + Y , big Z.
sum X Y Z :- n X , n Y , Z is X + Y , Z > 4.
both G H :- G , H.
nested X Y :- (n X , n Y) , (X < Y , n Y).
";

#[test]
fn a_later_conjunct_s_variable_is_fresh_after_each_retry() {
    // Z first occurs in the fourth conjunct; (1,2) gives Z = 3, which fails
    // `big`, and the retries must see Z unbound again.
    assert_eq!(
        both(NUMBERS, "pair X Y"),
        strs(&["X = 1, Y = 3", "X = 2, Y = 3"])
    );
    assert_eq!(
        both(NUMBERS, "sum X Y Z"),
        strs(&[
            "X = 2, Y = 3, Z = 5",
            "X = 3, Y = 2, Z = 5",
            "X = 3, Y = 3, Z = 6"
        ])
    );
}

#[test]
fn variable_and_nested_conjuncts() {
    assert_eq!(
        both(NUMBERS, "both (n X) (n Y)").len(),
        9,
        "every pair, in order"
    );
    assert_eq!(both(NUMBERS, "both (n X) (X > 2)"), strs(&["X = 3"]));
    assert_eq!(
        both(NUMBERS, "nested X Y"),
        strs(&["X = 1, Y = 2", "X = 1, Y = 3", "X = 2, Y = 3"])
    );
}

const MOVES: &str = "
MODULE moves.
LINEAR at a.
LINEAR coin 1.
LINEAR coin 2.
step a b.  step b c.  step a c.
walk X X 0 :- at X.
walk X Y K :- at X , step X Z , coin C , (at Z -o walk Z Y J) , K is J + C.
go Y K :- walk a Y K , erase.
";

#[test]
fn assumptions_and_erase_as_conjuncts() {
    // From a: a->b (coin 1 or 2) then stop at b, or go on b->c with the
    // other coin; or a->c directly (coin 1 or 2).  Stopping leaves the
    // unused resources to `erase`.
    assert_eq!(
        both(MOVES, "go Y K"),
        strs(&[
            "Y = a, K = 0",
            "Y = b, K = 1",
            "Y = c, K = 3",
            "Y = b, K = 2",
            "Y = c, K = 3",
            "Y = c, K = 1",
            "Y = c, K = 2",
        ])
    );
}

#[test]
fn a_conjunct_larger_than_one_reserved_run() {
    // The list conjunct takes 3 cells per element: more than 64 in all.
    let program = "
n 1.  n 2.
long X N :- n X ,
    L = (X :: X :: X :: X :: X :: X :: X :: X :: X :: X :: X :: X :: X :: X :: X :: X :: X :: X :: X :: X ::
         X :: X :: X :: X :: X :: X :: X :: X :: X :: X :: X :: X :: X :: X :: X :: X :: X :: X :: X :: X :: nil) ,
    length L N , X > 1.
";
    assert_eq!(both(program, "long X N"), strs(&["X = 2, N = 40"]));
}
