//! The heap's garbage collector: long deterministic computations run in
//! bounded memory, and collecting changes no answer.
//!
//! `LOLLI_GC_STRESS` makes the machine collect every 64 steps: the program
//! sessions of `programs/` are also run that way (tests/programs.rs).

mod common;

use common::{lolli_in, temp_dir, write_file};

/// A loop of a million iterations, each making a few cells of garbage
/// (the copy of its body): 16 bytes a cell, about 240 MB without a
/// collector.
const LOOP: &str = "MODULE loop.\n\
    loop N N.\n\
    loop I N :- I < N, J is I + 1, loop J N.\n";

/// Run `goal` on `program` under `--max-memory 64`: it must answer `yes`,
/// and the collector must have run at least twice.  Returns `--stats`.
fn within_64_mb(tag: &str, program: &str, goal: &str) -> String {
    let dir = temp_dir(tag);
    write_file(&dir.join("loop.lolli"), program);
    let run = lolli_in(
        &dir,
        &["--max-memory", "64", "--stats", "loop.lolli", "-e", goal],
        "",
        &[],
    );
    assert_eq!(
        (run.stdout.as_str(), run.code),
        ("yes\n", 0),
        "{}",
        run.stderr
    );
    let line = run
        .stderr
        .lines()
        .find(|l| l.starts_with("% garbage collected: "))
        .unwrap_or_else(|| panic!("no collector line in:\n{}", run.stderr));
    let runs: u64 = line["% garbage collected: ".len()..]
        .split(' ')
        .next()
        .and_then(|n| n.parse().ok())
        .expect("a number of collections");
    assert!(runs >= 2, "{line}");
    run.stderr
}

#[test]
fn a_deterministic_loop_runs_in_bounded_memory() {
    within_64_mb("gc-loop", LOOP, "loop 0 1000000");
}

/// A list of 50 integers, the garbage each iteration of the loops below
/// makes.
const MK: &str = "mk N (N :: L) :- N > 0, M is N - 1, mk M L.\nmk 0 nil.\n";

/// Cuts in a loop: `once` and a guard's commit remove the choice points of
/// the goals they run, and the frames those choice points kept are garbage
/// from then on (they used to stay, and with them every iteration's list:
/// 6 KB an iteration).
#[test]
fn a_loop_with_cuts_runs_in_bounded_memory() {
    within_64_mb(
        "gc-loop-cuts",
        &format!(
            "{MK}loop N N.\n\
             loop I N :- I < N, once (true ; true), mk 50 _, \
             (member _ (a :: b :: nil) -> true | fail), J is I + 1, loop J N.\n"
        ),
        "loop 0 100000",
    );
}

/// Scopes and bindings under a commit: a scope that ends with a choice
/// point inside it cannot be dropped then, but once `once` or a guard's
/// commit has removed that choice point nothing can reopen it (the scope's
/// entries used to stay until the query ended: 750 MB for this loop).  The
/// binding of `X` was trailed under `q`'s choice point; after the commit
/// its record is garbage too (it kept `X`, 70 bytes a turn).
#[test]
fn a_loop_of_committed_scopes_runs_in_bounded_memory() {
    within_64_mb(
        "gc-loop-committed",
        "MODULE loop.\n\
         q 1. q 2. q 3.\n\
         loop N N.\n\
         loop I N :- I < N, once (tok I -o (q X, tok I)), \
         ((tok I -o (q Y, tok I)) -> Y = 1 | fail), once (q _), \
         J is I + 1, loop J N.\n",
        "loop 0 1000000",
    );
}

/// `{G}` and `&` in a loop: each pushes a restriction and pops it again
/// (32 bytes of trail a turn, kept until the query ended), and `&` keeps
/// its own values in the machine's `aux` stack (20 bytes a turn).  With no
/// choice point left, neither is needed once they end.
#[test]
fn a_loop_of_restrictions_runs_in_bounded_memory() {
    within_64_mb(
        "gc-loop-restrictions",
        "MODULE loop.\n\
         loop N N.\n\
         loop I N :- I < N, { true }, (r -o (s -o ((r, s) & (s, r)))), (true & true), \
         J is I + 1, loop J N.\n",
        "loop 0 1000000",
    );
}

/// `forall` in a loop: its constant's birth keeps a cell in place (the
/// cell made next, the first of the iteration's list), but not what that
/// cell points to; and the variables whose ages were lowered for the
/// constant's scope are forgotten with them (map and trail) once nothing
/// reaches them.  Both used to keep every list: 5 KB an iteration.
#[test]
fn a_loop_with_forall_runs_in_bounded_memory() {
    within_64_mb(
        "gc-loop-forall",
        &format!(
            "{MK}loop N N.\n\
             loop I N :- I < N, forall x \\ true, mk 50 _, J is I + 1, loop J N.\n"
        ),
        "loop 0 100000",
    );
    // The scope check still refuses a constant leaving its `forall` after
    // collections of ages lowered for it.
    within_64_mb(
        "gc-loop-forall-scope",
        &format!(
            "{MK}loop N N.\n\
             loop I N :- I < N, forall x \\ true, mk 50 _, \
             not (forall y \\ exists Z \\ (W = f Z, Z = y)), J is I + 1, loop J N.\n"
        ),
        "loop 0 100000",
    );
}

/// `forall` in a deterministic loop of a million turns: each turn's
/// constant goes when its `forall` ends with no choice point left (it kept
/// 8 bytes, a cell for its birth, and variables whose ages were lowered
/// for it: 70 bytes a turn, 127 MB for this loop).  The constants of a
/// `forall` left with a choice point inside, and of every `forall` while
/// proofs are recorded or memoization is on, stay.
#[test]
fn a_loop_of_a_million_foralls_runs_in_bounded_memory() {
    within_64_mb(
        "gc-loop-forall-million",
        "MODULE loop.\n\
         loop N N.\n\
         loop I N :- I < N, (forall x \\ (p x -o p x)), (forall y \\ true), \
         J is I + 1, loop J N.\n",
        "loop 0 1000000",
    );
}

/// A loop that opens and closes a scope on every turn, assuming a new
/// resource each time (so each turn also makes new index keys): with no
/// choice point left inside, nothing can reopen a closed scope, and its
/// entries, index items, keys and trail records are dropped when it ends.
/// They used to stay until backtracking: about 600 bytes a turn, 630 MB
/// for this million turns.
#[test]
fn a_loop_of_closed_scopes_runs_in_bounded_memory() {
    within_64_mb(
        "gc-loop-scopes",
        "MODULE loop.\n\
         loop N N.\n\
         loop I N :- I < N, (tok I -o tok I), (fact I => fact I), J is I + 1, loop J N.\n",
        "loop 0 1000000",
    );
}

/// Backtracking gives back what a failed branch assumed: the index keys
/// first met in it (`g N`, new at every turn) and the template made for
/// each quantified clause it assumed (`forall y \\ h y N`).  Both used to
/// stay until the query ended: about 350 bytes a turn for the keys, and a
/// template (about a kilobyte) for every quantified clause ever assumed.
#[test]
fn a_loop_that_backtracks_over_assumptions_runs_in_bounded_memory() {
    within_64_mb(
        "gc-loop-backtracked",
        "MODULE loop.\n\
         q 1. q 2. q 3.\n\
         try N :- (g N => (g N, q Z, Z > 5)).\n\
         try N :- ((forall y \\ h y N) => (h a N, q Z, Z > 5)).\n\
         loop N N.\n\
         loop I N :- I < N, (try I ; true), J is I + 1, loop J N.\n",
        "loop 0 1000000",
    );
}

/// Dropping a closed scope keeps what backtracking to an older choice
/// point needs: an older resource consumed inside the dropped scope comes
/// back, and one consumed by a scope left open (a choice point inside it)
/// too; answers and their order are those of every other scope.
#[test]
fn dropping_closed_scopes_changes_no_answer() {
    let dir = temp_dir("gc-closed-scopes");
    write_file(
        &dir.join("scopes.lolli"),
        "MODULE scopes.\n\
         q 1. q 2. q 3.\n\
         older X :- r1 -o r2 -o ((X = a ; X = b), (t -o (r1, t)), r2).\n\
         open X :- r1 -o ((t -o (r1, q X, t)), X > 1).\n\
         turns 0 nil.\n\
         turns N (X :: L) :- N > 0, (tok N -o (q X, tok N)), M is N - 1, turns M L.\n\
         with X Y :- a -o ((a, (s -o s), q X) & (a, q Y)), X < 2, Y > 2.\n\
         hidden X :- r -o ({ (t -o (t, q X)) }, r).\n\
         once_older X :- r1 -o ((X = a ; X = b), once (t -o (r1, q _, t))).\n\
         guard_older X :- r1 -o ((X = a ; X = b), ((t -o (r1, q Z, t)) -> Z = 1 | fail)).\n\
         guard_else X :- r1 -o (((t -o (r1, q Z, Z > 5, t)) -> X = Z | X = c), r1).\n\
         nested X Y :- r1 -o (q X, once (s -o (once (t -o (q Y, t, r1)), s)), X > 1).\n\
         restricted X Y :- r -o ((X = a ; X = b), { q Y }, (r & (q Z, Z > Y, r)), Y > 1).\n\
         constants X :- (X = a ; X = b), (forall x \\ (p x -o p x)), \
         forall y \\ (q Z, (forall z \\ (g z y -o g z y)), (forall w \\ not (W = w, W = y)), Z > 1).\n",
    );
    let cases = [
        ("older X", "X = a\nX = b\n"),
        ("open X", "X = 2\nX = 3\n"),
        (
            "turns 2 L",
            "L = 1 :: 1 :: nil\nL = 1 :: 2 :: nil\nL = 1 :: 3 :: nil\n\
             L = 2 :: 1 :: nil\nL = 2 :: 2 :: nil\nL = 2 :: 3 :: nil\n\
             L = 3 :: 1 :: nil\nL = 3 :: 2 :: nil\nL = 3 :: 3 :: nil\n",
        ),
        ("with X Y", "X = 1, Y = 3\n"),
        ("hidden X", "X = 1\nX = 2\nX = 3\n"),
        ("(older X, fail ; X = c)", "X = c\n"),
        ("once_older X", "X = a\nX = b\n"),
        ("guard_older X", "X = a\nX = b\n"),
        ("guard_else X", "X = c\n"),
        ("nested X Y", "X = 2, Y = 1\nX = 3, Y = 1\n"),
        ("(once_older X, fail ; guard_older Y)", "Y = a\nY = b\n"),
        ("constants X", "X = a\nX = a\nX = b\nX = b\n"),
        ("restricted X Y", "X = a, Y = 2\nX = b, Y = 2\n"),
    ];
    for (goal, want) in cases {
        for env in [&[][..], &[("LOLLI_GC_STRESS", "1")][..]] {
            let run = lolli_in(&dir, &["--all", "scopes.lolli", "-e", goal], "", env);
            assert_eq!(
                (run.stdout.as_str(), run.code),
                (want, 0),
                "`{goal}`: {}",
                run.stderr
            );
        }
    }
}

/// The same loop with failure memoization on (for another predicate): the
/// collector runs under `MEMO` too (memo keys and resource identities hold
/// no heap address; the calls being memoized are roots).
#[test]
fn a_loop_runs_in_bounded_memory_with_memoization_on() {
    let stats = within_64_mb(
        "gc-loop-memo",
        &format!("{LOOP}MEMO other.\nother :- fail.\n"),
        "loop 0 1000000, not other",
    );
    assert!(stats.contains("% memo table:        1 key, "), "{stats}");
}

/// Live data built across many collections (a list of 200,000 integers,
/// made by a deterministic loop that leaves garbage behind at every step)
/// is intact afterwards; so are the query's own variables.
#[test]
fn live_data_survives_collections() {
    let dir = temp_dir("gc-live");
    write_file(
        &dir.join("build.lolli"),
        "MODULE build.\n\
         build 0 L L.\n\
         build N A L :- N > 0, M is N - 1, K is N * 2, build M (K :: A) L.\n\
         sum nil S S.\n\
         sum (X :: T) A S :- B is A + X, sum T B S.\n\
         check F G N S :- build 200000 nil L, L = (F :: G :: _), length L N, sum L 0 S.\n",
    );
    let goal = "check F G N S";
    let run = lolli_in(&dir, &["--stats", "build.lolli", "-e", goal], "", &[]);
    assert_eq!(
        (run.stdout.as_str(), run.code),
        ("F = 2, G = 4, N = 200000, S = 40000200000\n", 0),
        "{}",
        run.stderr
    );
    assert!(
        !run.stderr.contains("% garbage collected: 0 collections"),
        "the collector did not run:\n{}",
        run.stderr
    );
}

/// The same queries give the same output with and without a collection
/// every 64 steps, for the parts of the machine that keep heap addresses
/// beside the heap: `forall` constants and lowered ages, module
/// parameters and `LOCAL` names, assumed clauses with bodies, `&`,
/// aggregates, guards, `between`, and choice points left open.
#[test]
fn collecting_every_few_steps_changes_no_answer() {
    let dir = temp_dir("gc-stress");
    write_file(
        &dir.join("mix.lolli"),
        "MODULE mix.\n\
         count_down 0 nil.\n\
         count_down N (N :: L) :- N > 0, M is N - 1, count_down M L.\n\
         rev nil A A.\n\
         rev (X :: T) A R :- rev T (X :: A) R.\n\
         churn 0.\n\
         churn N :- N > 0, count_down 40 L, rev L nil _, M is N - 1, churn M.\n\
         perm nil.\n\
         perm (X :: T) :- tok X, perm T.\n\
         perm3 L :- (tok 1, tok 2, tok 3) -o (churn 10, perm L).\n\
         scoped N R :- forall x \\ exists Y \\ (churn N, Y = f x, R = done).\n\
         lowered X :- forall z \\ exists Y \\ (X = g Y, churn 30, not (Y = z), churn 30).\n\
         keep N L :- (item N -o (churn 20, item M, L = got M)).\n\
         both N :- (churn N & churn N).\n\
         pick X :- between 1 5 X, churn 10, X > 3.\n\
         agg N L :- findall X (between 1 N X, churn 5) L.\n\
         guard R :- (churn 50, fail -> R = no | churn 50, R = yes).\n",
    );
    let goals = [
        "churn 300",
        "perm3 L",
        "scoped 100 R",
        "lowered X",
        "keep 7 L",
        "both 100",
        "pick X",
        "agg 30 L",
        "guard R",
        "count_down 5000 L, rev L nil R, R = (A :: B :: _)",
    ];
    for goal in goals {
        let args = ["--all", "mix.lolli", "-e", goal];
        let plain = lolli_in(&dir, &args, "", &[]);
        let stressed = lolli_in(&dir, &args, "", &[("LOLLI_GC_STRESS", "1")]);
        assert_eq!(plain.code, 0, "`{goal}`: {}", plain.stderr);
        assert_eq!(plain, stressed, "`{goal}` with a collection every 64 steps");
    }
    // The stressed machine does collect.
    let run = lolli_in(
        &dir,
        &["--stats", "mix.lolli", "-e", "churn 300"],
        "",
        &[("LOLLI_GC_STRESS", "1")],
    );
    assert!(
        !run.stderr.contains("% garbage collected: 0 collections"),
        "{}",
        run.stderr
    );
}

/// A query whose proof log outgrows `Options::proof_limit` stops recording
/// it; the log made so far stays (frames and choice points name its
/// steps) and the collector, which does not run while a proof is recorded,
/// runs from then on with that log among its roots.  The answer is intact,
/// and the log is reported incomplete, so no proof is built from it.  (The
/// suite's run under `LOLLI_GC_STRESS` collects every 64 steps here.)
#[test]
fn a_log_no_longer_recorded_is_kept_by_the_collector() {
    let options = lolli::engine::Options {
        proofs: true,
        proof_limit: Some(2000),
        ..lolli::engine::Options::default()
    };
    let mut s =
        lolli::Session::with_options(options, Box::new(lolli::engine::BufferHost::default()));
    s.load_str(
        "build",
        "build 0 L L.\n\
         build N A L :- N > 0, M is N - 1, K is N * 2, build M (K :: A) L.\n\
         sum nil S S.\n\
         sum (X :: T) A S :- B is A + X, sum T B S.\n\
         mark X.\n\
         check F G N S :- forall x \\ exists Y \\ (Y = w x, mark Y, build 200000 nil L, \
             L = (F :: G :: _), length L N, sum L 0 S, mark Y).\n",
    )
    .expect("loads");
    let mut q = s.query("check F G N S").expect("parses");
    let answer = q.next_answer().expect("runs").expect("an answer");
    assert_eq!(
        answer.to_string(),
        "F = 2, G = 4, N = 200000, S = 40000200000"
    );
    // Every step of the log still names a well-formed term: its goals were
    // moved with the cells they point to.
    let m = q.machine();
    assert!(!m.proof.nodes.is_empty());
    let heap = &m.store.heap;
    let mut stack: Vec<lolli::term::Cell> = m.proof.nodes.iter().map(|n| n.goal).collect();
    stack.extend(&m.proof.slots);
    stack.extend(&m.proof.witnesses);
    let mut seen = std::collections::HashSet::new();
    while let Some(c) = stack.pop() {
        match m.store.deref(c) {
            lolli::term::Cell::Struct(a) if !seen.insert(a.0) => {}
            lolli::term::Cell::Struct(a) => match heap.cells.get(a.0 as usize) {
                Some(&lolli::term::Cell::Functor(_, n)) => {
                    stack.extend((0..n).map(|i| heap.arg(a, i)));
                }
                other => panic!("a step of the log points at {other:?}"),
            },
            lolli::term::Cell::Ref(a) => assert!((a.0 as usize) < heap.cells.len()),
            _ => {}
        }
    }
    drop(q);
    assert!(!s.machine.proof_complete());
    assert!(s.machine.gc_stats().runs > 0, "the collector did not run");
}
