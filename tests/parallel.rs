//! The parallel search (`--jobs`): whatever the number of workers and
//! however often the search is split, the command line prints exactly
//! what it prints with one worker: the answers in the same order, the
//! text the program writes, the errors, the notes on goals without
//! answers, the proofs, and the inferences `--stats` counts.
//!
//! Each case runs `lolli -j 1` and `lolli -j 3` with `LOLLI_SPLIT_STRESS`
//! (split at every chance, checked every 8 steps) and compares the two;
//! `--stats` must show that the second did split.

mod common;

use common::{lolli_in, temp_dir, write_file, Run};
use pretty_assertions::assert_eq;

/// `--stats` figures that depend on how the work was shared (time, the
/// collectors' and the look-ahead records' figures, the splits) taken
/// out; the inferences stay.
fn comparable(stderr: &str) -> String {
    stderr
        .lines()
        .filter(|l| {
            !l.starts_with("% garbage collected")
                && !l.starts_with("% look-ahead record")
                && !l.starts_with("% parallel search")
        })
        .map(|l| match l.find(" inferences in ") {
            Some(at) => &l[..at],
            None => l,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The number of splits `--stats` reports (0 when it reports none).
fn splits(stderr: &str) -> u64 {
    stderr
        .lines()
        .filter_map(|l| l.strip_prefix("% parallel search: 3 workers, "))
        .filter_map(|rest| rest.split(' ').next()?.parse::<u64>().ok())
        .max()
        .unwrap_or(0)
}

/// Run `args` (with `--stats`) on `program` with one worker, then with
/// three splitting at every chance: the same output.  Returns the first
/// run, and how many times the second was split.
fn same_with_workers(tag: &str, program: &str, args: &[&str]) -> (Run, u64) {
    let dir = temp_dir(tag);
    write_file(&dir.join("p.lolli"), program);
    let run = |jobs: &str, env: &[(&str, &str)]| {
        let mut all = vec!["--stats", "-j", jobs, "p.lolli"];
        all.extend_from_slice(args);
        lolli_in(&dir, &all, "", env)
    };
    let one = run("1", &[]);
    let three = run("3", &[("LOLLI_SPLIT_STRESS", "1")]);
    assert_eq!(
        (three.stdout.as_str(), comparable(&three.stderr), three.code),
        (one.stdout.as_str(), comparable(&one.stderr), one.code),
        "{args:?}"
    );
    let n = splits(&three.stderr);
    (one, n)
}

/// Peg solitaire on a line of nine holes (the seed program's moves, both
/// directions), with a peg count to read off each game's end.
const LINE: &str = "MODULE p.\n\
    LINEAR h 1 peg. LINEAR h 2 peg. LINEAR h 3 empty. LINEAR h 4 peg.\n\
    LINEAR h 5 peg. LINEAR h 6 empty. LINEAR h 7 peg. LINEAR h 8 peg.\n\
    LINEAR h 9 peg.\n\
    next 1 2. next 2 3. next 3 4. next 4 5. next 5 6. next 6 7. next 7 8. next 8 9.\n\
    play N :- next A B, next B C, h A peg, h B peg, h C empty,\n\
      ((h A empty, h B empty, h C peg) -o (M is N + 1, play M)).\n\
    play N :- next A B, next B C, h C peg, h B peg, h A empty,\n\
      ((h C empty, h B empty, h A peg) -o (M is N + 1, play M)).\n\
    play N :- write (moves N), nl, erase.\n";

#[test]
fn every_answer_and_every_line_written_come_out_in_order() {
    let (one, n) = same_with_workers("par-all", LINE, &["--all", "-e", "play 0"]);
    // 44 games, each line of moves followed by its `yes`.
    let lines: Vec<&str> = one.stdout.lines().collect();
    assert_eq!(lines.len(), 88, "{}", one.stdout);
    assert!(lines.iter().skip(1).step_by(2).all(|l| *l == "yes"));
    assert!(n > 0, "the search was not split");
}

#[test]
fn counts_limits_and_first_answers_are_those_of_one_worker() {
    for args in [
        &["--count", "-e", "play 0"][..],
        &["--all", "--limit", "7", "-e", "play 0"],
        &["--count", "--limit", "20", "-e", "play 0"],
        &["-e", "play 0"],
        &["--limit", "3", "-e", "play 0"],
    ] {
        let (_, n) = same_with_workers("par-counts", LINE, args);
        assert!(n > 0, "{args:?}: the search was not split");
    }
}

#[test]
fn proofs_and_moves_are_those_of_one_worker() {
    for args in [
        &["--all", "--limit", "5", "--proof", "-e", "play 0"][..],
        &["--all", "--limit", "5", "--proof=json", "-e", "play 0"],
        &["--all", "--limit", "5", "--proof=dot", "-e", "play 0"],
        &["--all", "--moves", "play", "-e", "play 0"],
        &["--count", "--check-proofs", "-e", "play 0"],
    ] {
        let (_, n) = same_with_workers("par-proofs", LINE, args);
        assert!(n > 0, "{args:?}: the search was not split");
    }
}

/// Ten digits, and goals over three of them.
const DIGITS: &str = "MODULE p.\n\
    d 0. d 1. d 2. d 3. d 4. d 5. d 6. d 7. d 8. d 9.\n\
    sum S :- d A, d B, d C, write A, write B, write C, nl, S =:= A + B + C.\n\
    bad X :- d A, d B, ((A =:= 7, B =:= 3) -> _ is nothing + 1 | true), X is A * 10 + B.\n\
    slow :- d _, d _, d _, d _, d _, d _, d _, fail.\n";

/// [`DIGITS`] with two linear resources, of which a goal uses one.
const SPARE: &str = "MODULE p.\n\
    d 0. d 1. d 2. d 3. d 4. d 5. d 6. d 7. d 8. d 9.\n\
    LINEAR r 1. LINEAR r 2.\n\
    spare X :- d _, d _, r X.\n";

#[test]
fn an_error_comes_after_the_answers_found_before_it() {
    let (one, n) = same_with_workers("par-error", DIGITS, &["--all", "-e", "bad X"]);
    assert_eq!(one.code, 2);
    assert_eq!(one.stdout.lines().count(), 73, "{}", one.stdout);
    assert!(one.stderr.contains("error"), "{}", one.stderr);
    assert!(n > 0, "the search was not split");
}

#[test]
fn text_written_by_a_search_without_answers_comes_out_whole() {
    let (one, n) = same_with_workers("par-write", DIGITS, &["-e", "sum 28"]);
    assert_eq!(one.stdout.lines().count(), 1001, "{}", one.stdout);
    assert_eq!(one.stdout.lines().last(), Some("no"));
    assert!(n > 0, "the search was not split");
}

#[test]
fn the_note_on_rejected_proofs_counts_every_worker_s() {
    let (one, n) = same_with_workers("par-note", SPARE, &["-e", "spare X"]);
    assert!(
        one.stderr.contains("200 proofs were found but rejected"),
        "{}",
        one.stderr
    );
    assert!(n > 0, "the search was not split");
}

#[test]
fn a_time_limit_stops_every_worker() {
    let dir = temp_dir("par-timeout");
    write_file(&dir.join("p.lolli"), DIGITS);
    let started = std::time::Instant::now();
    let run = lolli_in(
        &dir,
        &["-j", "3", "--timeout", "0.5", "p.lolli", "-e", "slow"],
        "",
        &[("LOLLI_SPLIT_STRESS", "1")],
    );
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("time limit exceeded"), "{}", run.stderr);
    assert!(started.elapsed() < std::time::Duration::from_secs(30));
}

#[test]
fn a_program_that_reads_runs_on_one_thread() {
    // `read` takes its input in the order of the search: no split.
    let dir = temp_dir("par-read");
    write_file(
        &dir.join("p.lolli"),
        "MODULE p.\nd 0. d 1. d 2. d 3.\nask S :- d A, d B, read X, S is A + B + X.\n",
    );
    let run = lolli_in(
        &dir,
        &["--stats", "-j", "3", "--all", "p.lolli", "-e", "ask S"],
        &"1.\n".repeat(16),
        &[("LOLLI_SPLIT_STRESS", "1")],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout.lines().count(), 16, "{}", run.stdout);
    assert_eq!(splits(&run.stderr), 0, "{}", run.stderr);
    assert!(!run.stderr.contains("parallel"), "{}", run.stderr);
}

#[test]
fn the_triangle_is_the_same_with_workers() {
    // Six jumps in a debug build, thirteen in an optimized one.
    let jumps = if cfg!(debug_assertions) { 6 } else { 13 };
    let n = (0..jumps).fold("z".to_string(), |t, _| format!("(s {t})"));
    let program = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("programs/solitaire.lolli"),
    )
    .expect("the seed program is there")
    .replace("MODULE solitaire.", "MODULE p.");
    let goal = format!("jump {n}");
    for args in [
        &["--count", "-e", &goal][..],
        &["--moves", "jump", "-e", &goal],
    ] {
        let (_, splits) = same_with_workers("par-triangle", &program, args);
        assert!(splits > 0, "{args:?}: the search was not split");
    }
}

/// The value of the line of `text` that starts with `prefix`, if any.
fn line_after<'t>(text: &'t str, prefix: &str) -> Option<&'t str> {
    text.lines().find_map(|l| l.strip_prefix(prefix))
}

#[test]
fn the_top_level_s_figures_count_every_worker_s_part() {
    // A goal read by the top level, then `:stats`: the time `--stats`
    // prints for the goal and the session's search time are the same
    // (the root worker's part included), and so are their look-ahead
    // records (every worker's decisions).
    let dir = temp_dir("par-top-stats");
    let jumps = if cfg!(debug_assertions) { 6 } else { 8 };
    let n = (0..jumps).fold("z".to_string(), |t, _| format!("(s {t})"));
    let program = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("programs/solitaire.lolli"),
    )
    .expect("the seed program is there")
    .replace(
        "MODULE solitaire.",
        "MODULE p.\nd 0. d 1. d 2. d 3. d 4. d 5. d 6. d 7. d 8. d 9.\n\
         many :- d _, d _, d _, d _, d _, fail.\n",
    );
    write_file(&dir.join("p.lolli"), &program);
    for (goal, env) in [
        // (Every game of that many jumps: no answer.)
        (
            format!("jump {n}, fail."),
            &[("LOLLI_SPLIT_STRESS", "1")][..],
        ),
        ("many.".to_string(), &[]),
    ] {
        let input = format!("{goal}\n:stats\n");
        let run = lolli_in(&dir, &["--stats", "-j", "3", "p.lolli"], &input, env);
        assert_eq!(run.code, 0, "{goal}: {}", run.stderr);
        let secs = line_after(&run.stderr, "% ")
            .and_then(|l| l.split(" inferences in ").nth(1))
            .expect("--stats prints the goal's time");
        assert_eq!(
            Some(secs),
            line_after(&run.stdout, "search time:       "),
            "{goal}: {}{}",
            run.stderr,
            run.stdout
        );
        assert_eq!(
            line_after(&run.stderr, "% look-ahead record: "),
            line_after(&run.stdout, "look-ahead record: "),
            "{goal}: {}{}",
            run.stderr,
            run.stdout
        );
    }
}
