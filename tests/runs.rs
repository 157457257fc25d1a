//! Runs of consumed resources (src/engine/runs.rs): calls and retries that
//! pass many consumed items of one bucket jump over them with run records.
//! The records may never change an answer: these programs pile up runs
//! longer than the records' spacing (64) and check the answers where a
//! stale record would lose or invent one: after backtracking, after `&`
//! gives resources back, after a scope's items are popped and new ones take
//! their positions, and under `{G}`.

mod common;

use common::{all_answers, session};
use pretty_assertions::assert_eq;

/// `mk N G`: prove `G` with linear `r 1 .. r N` assumed, `r 1` newest.
/// `takel K L`: consume `K` resources `r X`, newest first, listing them.
/// `lc N C`: a counter threaded through the context `N` levels deep.
/// `rep N Ls`: `N` rounds, each assuming 70 resources and consuming them.
const PROGRAM: &str = "
mk 0 G :- G.
mk N G :- N > 0, M is N - 1, (r N -o mk M G).
mkb 0 B G :- G.
mkb N B G :- N > 0, M is N - 1, V is B + N, (r V -o mkb M B G).
takel 0 nil.
takel K (X :: L) :- K > 0, r X, M is K - 1, takel M L.
lc 0 C :- cnt C.
lc N C :- N > 0, cnt A, B is A + 1, M is N - 1, (cnt B -o lc M C).
rep 0 nil.
rep N (L :: Ls) :- N > 0, mkb 70 1000 (takel 70 L), M is N - 1, rep M Ls.
";

/// The numbers `from ..= to` as a list term.
fn list(from: u32, to: u32) -> String {
    let mut s = String::new();
    for i in from..=to {
        s.push_str(&format!("{i} :: "));
    }
    s + "nil"
}

/// Every answer of `goal` (keep them few: `takel` has one per order).
fn answers(goal: &str) -> Vec<String> {
    let (mut s, _) = session();
    s.load_str("runs", PROGRAM).expect("the program loads");
    all_answers(&mut s, goal)
}

/// The first answer of `goal`, if any.
fn first(goal: &str) -> Option<String> {
    let (mut s, _) = session();
    s.load_str("runs", PROGRAM).expect("the program loads");
    let mut q = s.query(goal).expect("the goal parses");
    q.next_answer()
        .expect("the goal raises no error")
        .map(|a| a.to_string())
}

#[test]
fn a_loop_without_keys_takes_every_resource_in_order() {
    // The k-th call passes the k - 1 resources consumed before it.
    assert_eq!(
        first("mk 300 (takel 300 L)"),
        Some(format!("L = {}", list(1, 300)))
    );
    assert_eq!(
        first("mk 300 (takel 200 L, erase)"),
        Some(format!("L = {}", list(1, 200)))
    );
}

#[test]
fn backtracking_through_a_threaded_counter_finds_no_more_answers() {
    // Each level's retry passes every counter consumed below it.
    assert_eq!(answers("cnt 0 -o lc 400 C"), ["C = 400"]);
    assert_eq!(answers("count (cnt 0 -o lc 400 C) N"), ["N = 1"]);
    assert_eq!(
        answers("cnt 0 -o (lc 400 C, C > 400)"),
        Vec::<String>::new()
    );
}

#[test]
fn resources_restored_by_backtracking_are_seen_again() {
    // The first branch consumes 100 resources (leaving run records over
    // them) and fails; backtracking restores them all, so the second
    // branch's scans must not jump over them.
    assert_eq!(
        first("mk 200 ((once (takel 100 L), fail) ; takel 150 L2, erase)"),
        Some(format!("L2 = {}", list(1, 150)))
    );
    // The same, with the restored resources consumed again in another
    // order: `r 99` first, which was the latest of the first branch's run.
    assert_eq!(
        first("mk 200 ((once (takel 100 L), fail) ; r 99, takel 150 L2, erase)"),
        Some(format!(
            "L2 = {}{}",
            list(1, 98).trim_end_matches("nil"),
            list(100, 151)
        ))
    );
    // The same inside one branch: `r 151` is found only after a retry of
    // the last call of `takel` (the 150th resource goes back, the 151st is
    // taken instead, then 150 is left for `r Y`).
    assert_eq!(
        first("mk 200 (takel 150 L, r Y, Y = 150, erase)"),
        Some(format!(
            "L = {}151 :: nil, Y = 150",
            list(1, 149).trim_end_matches("nil")
        ))
    );
}

#[test]
fn the_second_side_of_with_gets_back_what_the_first_consumed() {
    // `G1` leaves run records over what it consumed; `G2` must see all of
    // it again, in the same order.
    assert_eq!(
        first("mk 150 (takel 150 L1 & takel 150 L2)"),
        Some(format!("L1 = {0}, L2 = {0}", list(1, 150)))
    );
}

#[test]
fn new_resources_in_the_positions_of_popped_ones_are_found() {
    // Each round assumes 70 resources on top of the 100 left, consumes
    // them, and its scope's end pops them: the next round's resources take
    // the same positions, under records of the last round's runs.
    let round = list(1001, 1070);
    assert_eq!(
        first("mk 100 (rep 3 Ls, takel 100 L)"),
        Some(format!(
            "Ls = ({round}) :: ({round}) :: ({round}) :: nil, L = {}",
            list(1, 100)
        ))
    );
}

#[test]
fn hidden_resources_end_a_run() {
    // Under `{G}` the unconsumed resources are unusable without being
    // consumed: a scan passes them one by one.
    assert_eq!(first("mk 200 (once (takel 100 L), {r X})"), None);
    assert_eq!(
        first("mk 200 (takel 100 L, (r 0 => {r X}), erase)"),
        Some(format!("L = {}, X = 0", list(1, 100)))
    );
}
