//! Failure memoization (`MEMO`, `--memo`): answers and their order are
//! exactly those without it; failures are recorded per linear context.

mod common;

use std::process::Command;

use pretty_assertions::assert_eq;

fn lolli(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_lolli"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("the binary runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn nat(n: usize) -> String {
    let mut t = "z".to_string();
    for _ in 0..n {
        t = format!("(s {t})");
    }
    t
}

#[test]
fn the_centre_search_visits_each_position_once() {
    let goal = format!("jump {}", nat(13));
    let (code, out, err) = lolli(&["tests/memo/centre.lolli", "--stats", "-e", &goal]);
    assert_eq!((code, out.as_str()), (1, "no\n"));
    // 1,651 distinct positions are reachable from the seed's start: each
    // failed once and was recorded once.  The table is bounded by memory
    // alone (a quarter of the machine's, so the figure varies).
    assert!(
        err.contains("memo table:        1651 keys, ") && err.contains("1651 recorded, 0 evicted"),
        "{err}"
    );
}

#[test]
fn memo_keeps_the_answers_and_their_order() {
    let cases: &[(&str, &str, &[&str])] = &[
        ("programs/solitaire.lolli", "jump (s (s (s z)))", &["jump"]),
        (
            "programs/solitaire2.lolli",
            "jump (j A (j B (j C f)))",
            &["jump"],
        ),
        ("tests/memo/graph.lolli", "path a Z", &["path"]),
        ("tests/memo/graph.lolli", "reach X d", &["path", "reach"]),
        ("tests/memo/graph.lolli", "twice a Z", &["path", "twice"]),
        ("tests/memo/guarded.lolli", "none", &["has", "none"]),
        ("tests/memo/guarded.lolli", "both T", &["has", "both"]),
        ("tests/memo/guarded.lolli", "has T, has U", &["has"]),
        ("tests/memo/moves.lolli", "pick (s (s (s z)))", &["pick"]),
    ];
    for (file, goal, preds) in cases {
        let (c0, plain, e0) = lolli(&[file, "--all", "-e", goal]);
        let mut args = vec![*file, "--all", "-e", goal];
        for p in *preds {
            args.push("--memo");
            args.push(p);
        }
        let (c1, memo, e1) = lolli(&args);
        assert_eq!((c1, memo, e1), (c0, plain.clone(), e0), "{file}: {goal}");
        assert!(!plain.is_empty());
    }
}

#[test]
fn the_formula_suite_is_unchanged_by_memo() {
    let formulas = [
        "a -o b -o (a , b)",
        "(a & b) -o a",
        "a => (a , a)",
        "a -o (a , a)",
        "a -o a -o a",
        "a -o b -o (a & b)",
        "(a & b) -o (a , b)",
        "(a & b) -o (a & b) -o ((a , a) & (a , b) & (b , b))",
        "a -o a -o a -o (a , erase)",
        "a -o b -o c -o (erase , erase)",
        "(p a , p b , p a) -o (p X , p Y , erase)",
    ];
    for f in formulas {
        let (_, plain, _) = lolli(&["--all", "-e", f]);
        let (_, memo, _) = lolli(&[
            "--all", "--memo", "a", "--memo", "b", "--memo", "p", "-e", f,
        ]);
        assert_eq!(memo, plain, "{f}");
    }
}

#[test]
fn a_failure_known_before_assuming_is_the_one_the_call_finds() {
    // A memoized call that runs right after an assumption of ground facts
    // is looked up before the facts are assumed, and, when a candidate of
    // the move's first call decides the whole move, before the candidate
    // is tried (the memo look-ahead, see also the next test).  With a
    // depth limit both checks are off (the call might pass the limit), and
    // every known failure is found by the call itself: answers and the
    // table's figures (hits, misses, keys) must be the same either way.
    let centre = format!("jump {}", nat(13));
    let cases: &[(&str, &str, &[&str])] = &[
        (
            "tests/memo/moves.lolli",
            "pick (s (s (s (s z))))",
            &["--memo", "pick"],
        ),
        ("tests/memo/centre.lolli", &centre, &[]),
        ("programs/english.lolli", "english (centre Moves)", &[]),
    ];
    for &(file, goal, memo) in cases {
        let run = |extra: &[&str]| {
            let mut args = vec![file, "--stats", "-e", goal];
            args.extend_from_slice(memo);
            args.extend_from_slice(extra);
            let (code, out, err) = lolli(&args);
            let table = err
                .lines()
                .find(|l| l.starts_with("% memo table:"))
                .unwrap_or_else(|| panic!("{file}: no memo figures in {err}"))
                .to_string();
            (code, out, table)
        };
        let (before, at_call) = (run(&[]), run(&["--max-depth", "1000000"]));
        assert_eq!(before, at_call, "{file}");
        assert!(!before.2.contains(" 0 hits"), "{file}: {}", before.2);
    }
}

#[test]
fn moves_known_to_fail_are_passed_over_alike() {
    // Moves of every shape the memo look-ahead looks at (see the file):
    // answers and their order with and without MEMO, and the table's
    // figures with the look-ahead on and off (a depth limit turns it off),
    // are the same; only the inferences made differ.
    let memo = ["--memo", "hop", "--memo", "hop_from"];
    let goals = [
        "hop (s (s (s z)))",
        "hop (s (s (s (s (s z)))))",
        "hop N",
        "hop (s (s N))",
    ];
    for goal in goals {
        let base = [
            "tests/memo/ahead.lolli",
            "--all",
            "--limit",
            "40",
            "-e",
            goal,
        ];
        let (code, plain, err) = lolli(&base);
        assert_eq!(err, "", "{goal}");
        assert!(plain.lines().count() > 1, "{goal}: {plain}");
        let run = |extra: &[&str]| {
            let mut args = base.to_vec();
            args.extend_from_slice(&memo);
            args.extend_from_slice(extra);
            let (code, out, err) = lolli(&args);
            let table = err
                .lines()
                .find(|l| l.starts_with("% memo table:"))
                .map(str::to_string);
            (code, out, table)
        };
        let (ahead, at_call) = (
            run(&["--stats"]),
            run(&["--stats", "--max-depth", "100000"]),
        );
        assert_eq!(ahead, at_call, "{goal}");
        assert_eq!((ahead.0, ahead.1), (code, plain), "{goal}");
    }
    // The look-ahead was at work: fewer calls were made.
    let inferences = |extra: &[&str]| {
        let mut args = vec!["tests/memo/ahead.lolli", "--stats", "-e", goals[1]];
        args.extend_from_slice(&memo);
        args.extend_from_slice(extra);
        let (_, _, err) = lolli(&args);
        let line = err
            .lines()
            .find(|l| l.contains(" inferences in "))
            .unwrap_or("")
            .to_string();
        line.split_whitespace()
            .nth(1)
            .and_then(|n| n.parse::<u64>().ok())
    };
    let (with, without) = (inferences(&[]), inferences(&["--max-depth", "100000"]));
    assert!(with.is_some() && with < without, "{with:?} {without:?}");
}

#[test]
fn a_tiny_table_evicts_and_still_answers_alike() {
    // Six jumps ending with the last peg in the start hole: many dead ends
    // fail and are recorded, and a table of four keys must evict.
    let goal = format!("jump {}", nat(6));
    let plain = std::fs::read_to_string("tests/memo/centre.lolli")
        .expect("the centre program")
        .replace("MEMO jump.", "")
        .replace("MODULE centre.", "MODULE centre_plain.");
    let dir = common::temp_dir("memo-evicts");
    let plain_file = dir.join("centre_plain.lolli");
    std::fs::write(&plain_file, plain).expect("write");
    let plain_path = plain_file.to_string_lossy().into_owned();
    let (_, without, _) = lolli(&[&plain_path, "--count", "-e", &goal]);
    assert!(
        without.trim().parse::<u64>().is_ok_and(|n| n > 0),
        "{without}"
    );
    let (code, out, err) = lolli(&[
        "tests/memo/centre.lolli",
        "--memo-limit",
        "4",
        "--count",
        "--stats",
        "-e",
        &goal,
    ]);
    assert_eq!((code, out), (0, without));
    let evicted: u64 = err
        .lines()
        .find(|l| l.starts_with("% memo table:"))
        .unwrap_or_default()
        .split(", ")
        .find_map(|p| p.strip_suffix(" evicted"))
        .and_then(|n| n.parse().ok())
        .expect("--stats reports evictions");
    assert!(evicted > 0, "{err}");
}

#[test]
fn a_failure_under_one_binding_of_a_module_parameter_is_not_reused_under_another() {
    // `t :- q P`: with P = b it fails, with P = a it succeeds, in the same
    // goal and in the next one (where P is fresh again).
    let (code, out, err) = lolli(&[
        "tests/memo/param.lolli",
        "--stats",
        "-e",
        "go",
        "-e",
        "setp b, t",
        "-e",
        "setp a, t",
    ]);
    assert_eq!((code, out.as_str()), (1, "yes\nno\nyes\n"), "{err}");
    assert!(err.contains("1 key"), "{err}");
}

#[test]
fn calls_in_a_non_ground_context_are_not_memoized() {
    // The resource `r X` is not ground: no key is exact, nothing is recorded.
    let (code, out, err) = lolli(&[
        "--memo",
        "q",
        "--stats",
        "--all",
        "-e",
        "r X -o (q :- r a) -o (q ; q)",
    ]);
    assert_eq!((code, out.as_str()), (0, "X = a\nX = a\n"));
    assert!(err.contains("0 keys") && err.contains("0 misses"), "{err}");
}

#[test]
fn names_made_during_the_query_keep_calls_from_being_memoized() {
    // A module's LOCAL name and a `forall` constant alike (also one that
    // names a predicate): the failure of `p X` for an X older than the
    // name says nothing of `p Y` for a younger Y with the same key.
    for goal in ["t1 X", "t2 X", "t3 X"] {
        let args = |memo: bool| {
            let mut a = vec!["-I", "tests/memo", "tests/memo/localuse.lolli"];
            if memo {
                a.extend(["--memo", "p", "--stats"]);
            }
            a.extend(["-e", goal]);
            a
        };
        let (code, out, _) = lolli(&args(false));
        assert_eq!((code, out.as_str()), (0, "yes\n"), "{goal}");
        let (code, out, err) = lolli(&args(true));
        assert_eq!(
            (code, out.as_str()),
            (0, "yes\n"),
            "{goal} with --memo p: {err}"
        );
        assert!(err.contains(" 0 recorded"), "{goal}: {err}");
    }
}

/// The English board, replayed in Rust: holes (row, column) from 1 to 7
/// without the four 2×2 corners, all pegged but the centre.
fn english_board() -> std::collections::BTreeMap<(i64, i64), bool> {
    let mut board = std::collections::BTreeMap::new();
    for r in 1..=7 {
        for c in 1..=7 {
            let corner = !(3..=5).contains(&r) && !(3..=5).contains(&c);
            if !corner {
                board.insert((r, c), (r, c) != (4, 4));
            }
        }
    }
    board
}

#[test]
fn the_english_board_is_solved_to_the_centre_and_the_moves_replay() {
    // With MEMO (declared in the program) the whole 33-hole board is solved;
    // the moves are read off the proof with --moves and replayed.
    let (code, out, err) = lolli(&[
        "programs/english.lolli",
        "--moves",
        "jump",
        "--stats",
        "-e",
        "english (centre Moves)",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("recorded"), "{err}");
    let mut board = english_board();
    let mut moves = 0;
    for line in out.lines().filter(|l| l.starts_with("jump (go ")) {
        // `jump (go DIR (h R K)) ...`
        let words: Vec<&str> = line
            .split(|c: char| c == '(' || c == ')' || c.is_whitespace())
            .filter(|w| !w.is_empty())
            .collect();
        let (dir, r, k) = (words[2], words[4], words[5]);
        let (r, k): (i64, i64) = (r.parse().expect("row"), k.parse().expect("column"));
        let (dr, dk) = match dir {
            "north" => (-1, 0),
            "east" => (0, 1),
            "south" => (1, 0),
            "west" => (0, -1),
            other => panic!("unknown direction {other}"),
        };
        let (a, b, c) = ((r, k), (r + dr, k + dk), (r + 2 * dr, k + 2 * dk));
        assert_eq!(
            (board.get(&a), board.get(&b), board.get(&c)),
            (Some(&true), Some(&true), Some(&false)),
            "illegal move {line}"
        );
        board.insert(a, false);
        board.insert(b, false);
        board.insert(c, true);
        moves += 1;
    }
    assert_eq!(moves, 31);
    let pegs: Vec<_> = board.iter().filter(|(_, &p)| p).map(|(h, _)| *h).collect();
    assert_eq!(pegs, vec![(4, 4)]);
}

/// Every answer of `goal` after loading `program`, with `memo` (a predicate
/// name and a table limit) or without; and the number of terms interned.
fn all_answers(program: &str, goal: &str, memo: Option<(&str, usize)>) -> (Vec<String>, usize) {
    let mut s = lolli::Session::new();
    s.load_str("tokens", program).expect("the program loads");
    if let Some((pred, limit)) = memo {
        s.machine.memo.limit = limit;
        assert!(s.memoize(pred, "--memo").expect("a name").is_empty());
    }
    let answers = s
        .query(goal)
        .expect("the goal parses")
        .map(|a| a.expect("no error").to_string())
        .collect();
    (answers, s.machine.memo.interned())
}

#[test]
fn the_interning_of_resource_terms_stays_bounded() {
    // Each branch assumes new ground resources (`tok N K` for 60 pairs),
    // so the terms ever interned outnumber the context's entries: the
    // interning starts afresh, renumbering the live entries, and the
    // answers (sums of three picks that make 25) stay those without MEMO.
    let program = "
        go 0 S nil :- S =:= 25, erase.
        go N S (K :: Ks) :- N > 0, between 1 20 K, M is N - 1, T is S + K,
            (tok N K -o go M T Ks).
    ";
    let goal = "go 3 0 Ks";
    let (plain, _) = all_answers(program, goal, None);
    assert_eq!(plain.len(), 258);
    assert_eq!(plain[0], "Ks = 1 :: 4 :: 20 :: nil");
    for limit in [4, 40, 1_000_000] {
        let (memo, interned) = all_answers(program, goal, Some(("go", limit)));
        assert_eq!(memo, plain, "memo limit {limit}");
        if limit < 60 {
            assert!(interned < 60, "limit {limit}: {interned} terms interned");
        } else {
            assert_eq!(interned, 60, "limit {limit}");
        }
    }
}

#[test]
fn the_look_ahead_keys_of_candidates_follow_the_renumbering_of_terms() {
    // `tok L K` candidates are checked against `fits K` by a plan compiled
    // with the clause, whose keys are kept by the candidate's term id; the
    // moves assume ever new terms (`tok A K1`, A the running sum), so with
    // a small table the interning starts afresh during the search and the
    // ids name other terms.  Keys kept under the old ids would drop
    // candidates that fit (38 answers instead of 523 when they were kept).
    let program = "
        fits 2. fits 3. fits 5. fits 7. fits 11. fits 13.
        walk z Acc Acc :- erase.
        walk (s N) Acc Out :- tok L K, fits K, A is K + Acc,
            J1 is K * 7 + L, K1 is J1 - (J1 / 13) * 13,
            J2 is K * 5 + 3, K2 is J2 - (J2 / 13) * 13, L1 is L + 1,
            ((tok A K1, tok L1 K2) -o walk N A Out).
        go Out :- (tok 0 2, tok 0 3, tok 0 4, tok 0 5) -o
            walk (s (s (s (s (s (s (s z))))))) 0 Out.
    ";
    let (plain, _) = all_answers(program, "go Out", None);
    assert_eq!(plain.len(), 523);
    assert_eq!(plain[0], "Out = 27");
    let (_, all_terms) = all_answers(program, "go Out", Some(("walk", 1_000_000)));
    for limit in [2, 4, 16, 1_000_000] {
        let (memo, interned) = all_answers(program, "go Out", Some(("walk", limit)));
        assert_eq!(memo, plain, "memo limit {limit}");
        if limit <= 4 {
            assert!(
                interned < all_terms,
                "limit {limit}: {interned} of {all_terms} terms"
            );
        }
    }
}

#[test]
fn assuming_a_clause_of_no_alternatives_is_no_fact() {
    // `true -o p` assumes a clause with no alternative: the memo's
    // identity of an assumed fact must not look for one (it did, and the
    // interpreter stopped on an index out of bounds), with or without MEMO
    // (the look-ahead's record keeps the memo's sums too).
    let dir = common::temp_dir("memo-true");
    let file = dir.join("m.lolli");
    // (`q`, whose body starts with a call sharing no variable with its
    // head, turns the record on.)
    common::write_file(&file, "MODULE m.\np.\nq :- p.\n");
    let file = file.to_str().expect("utf-8 path");
    for (goal, answer) in [
        // A linear `true` is Lolli's clause ⊤: nothing can use it up.
        ("true -o p", "no\n"),
        ("(true , true) -o p", "no\n"),
        ("true => p", "yes\n"),
        ("true -o (p , erase)", "yes\n"),
    ] {
        let code = if answer == "yes\n" { 0 } else { 1 };
        // A `no` says which resource was left: the assumed `true`.
        let note = if code == 0 {
            String::new()
        } else {
            "note: a proof was found but rejected: it left linear resources unused (`true`); \
             every linear resource must be used up, and `erase` uses up what is left\n"
                .to_string()
        };
        for memo in [&["--memo", "p"][..], &[]] {
            let mut args = memo.to_vec();
            args.extend([file, "-e", goal]);
            assert_eq!(
                lolli(&args),
                (code, answer.to_string(), note.clone()),
                "{goal} {memo:?}"
            );
        }
    }
}
