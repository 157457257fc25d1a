//! The reference program of seed 004: Pfenning's triangle peg solitaire.
//! `programs/solitaire.lolli` proves that 13 jumps can be made;
//! `programs/solitaire2.lolli` returns them.  The jumps it returns first are
//! the ones the seed printed, and a board model written here in Rust checks
//! that they are legal and leave one peg, and counts short jump sequences
//! independently of the interpreter; a model of Lolli's search order
//! gives the first game from every start hole, which the interpreter's
//! proofs must show.

mod common;

use common::{crate_root, lolli, ok, session};
use pretty_assertions::assert_eq;
use std::collections::HashMap;

// ------------------------------------------------------------ board model

/// The six jump directions, named as in the program, as (row, column) steps.
const DIRECTIONS: [(&str, i32, i32); 6] = [
    ("sw", 1, 0),
    ("se", 1, 1),
    ("e", 0, 1),
    ("ne", -1, 0),
    ("nw", -1, -1),
    ("w", 0, -1),
];

/// A triangle board of 15 holes, row x in 0..5, column y in 0..=x.
#[derive(Clone, PartialEq, Eq, Debug)]
struct Board {
    peg: [[bool; 5]; 5],
}

/// A jump: the direction's name and the hole the jumping peg starts from.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct Jump {
    dir: &'static str,
    x: i32,
    y: i32,
}

impl Board {
    /// The seed's starting position: every hole full except row 2, column 1.
    fn start() -> Board {
        let mut peg = [[false; 5]; 5];
        for (x, row) in peg.iter_mut().enumerate() {
            for cell in row.iter_mut().take(x + 1) {
                *cell = true;
            }
        }
        peg[2][1] = false;
        Board { peg }
    }

    /// Every hole full but `(x, y)`.
    fn with_hole(x: usize, y: usize) -> Board {
        let mut board = Board::start();
        board.peg[2][1] = true;
        board.peg[x][y] = false;
        board
    }

    /// The pegs as 15 bits, row by row.
    fn bits(&self) -> u16 {
        let mut bits = 0;
        for (x, row) in self.peg.iter().enumerate() {
            for (y, &p) in row.iter().take(x + 1).enumerate() {
                if p {
                    bits |= 1 << (x * (x + 1) / 2 + y);
                }
            }
        }
        bits
    }

    /// The number of sequences of `n` legal jumps from here, remembering
    /// the count of each position in `seen` (so that a whole game tree is
    /// counted at once).
    fn sequences_memo(&self, n: usize, seen: &mut HashMap<(u16, usize), usize>) -> usize {
        if n == 0 {
            return 1;
        }
        if let Some(&k) = seen.get(&(self.bits(), n)) {
            return k;
        }
        let k = self
            .moves()
            .into_iter()
            .map(|j| {
                let mut next = self.clone();
                next.play(j);
                next.sequences_memo(n - 1, seen)
            })
            .sum();
        seen.insert((self.bits(), n), k);
        k
    }

    fn on_board(x: i32, y: i32) -> bool {
        (0..5).contains(&x) && (0..=x).contains(&y)
    }

    fn at(&self, x: i32, y: i32) -> bool {
        self.peg[x as usize][y as usize]
    }

    fn set(&mut self, x: i32, y: i32, v: bool) {
        self.peg[x as usize][y as usize] = v;
    }

    fn steps(dir: &str) -> (i32, i32) {
        DIRECTIONS
            .iter()
            .find(|d| d.0 == dir)
            .map(|d| (d.1, d.2))
            .unwrap_or_else(|| panic!("unknown direction {dir}"))
    }

    /// Whether the jump is legal here: a peg jumps over a peg into a hole.
    fn legal(&self, j: Jump) -> bool {
        let (dx, dy) = Board::steps(j.dir);
        let (mx, my, tx, ty) = (j.x + dx, j.y + dy, j.x + 2 * dx, j.y + 2 * dy);
        Board::on_board(j.x, j.y)
            && Board::on_board(tx, ty)
            && self.at(j.x, j.y)
            && self.at(mx, my)
            && !self.at(tx, ty)
    }

    fn play(&mut self, j: Jump) {
        let (dx, dy) = Board::steps(j.dir);
        self.set(j.x, j.y, false);
        self.set(j.x + dx, j.y + dy, false);
        self.set(j.x + 2 * dx, j.y + 2 * dy, true);
    }

    fn moves(&self) -> Vec<Jump> {
        let mut out = Vec::new();
        for x in 0..5 {
            for y in 0..=x {
                for (dir, _, _) in DIRECTIONS {
                    let j = Jump { dir, x, y };
                    if self.legal(j) {
                        out.push(j);
                    }
                }
            }
        }
        out
    }

    fn pegs(&self) -> usize {
        self.peg.iter().flatten().filter(|p| **p).count()
    }
}

/// `s (s z)` in Lolli notation.
fn nat(n: usize) -> String {
    let mut t = "z".to_string();
    for _ in 0..n {
        t = if t == "z" {
            "s z".to_string()
        } else {
            format!("s ({t})")
        };
    }
    t
}

/// A number as an argument: parenthesized unless it is `z`.
fn nat_arg(n: usize) -> String {
    if n == 0 {
        "z".to_string()
    } else {
        format!("({})", nat(n))
    }
}

/// Reads a natural number argument (`z` or `(s ...)`) off the front of `s`.
fn parse_nat(s: &str) -> (i32, &str) {
    let s = s.trim_start();
    if let Some(rest) = s.strip_prefix('z') {
        return (0, rest);
    }
    let inner = s
        .strip_prefix("(s ")
        .unwrap_or_else(|| panic!("not a number: {s}"));
    if let Some(rest) = inner.strip_prefix("z)") {
        return (1, rest);
    }
    let (n, rest) = parse_nat(inner);
    let rest = rest
        .strip_prefix(')')
        .unwrap_or_else(|| panic!("no `)`: {rest}"));
    (n + 1, rest)
}

/// Reads a jump printed as `dir X Y`.
fn parse_jump(s: &str) -> Jump {
    let (dir, args) = s.split_once(' ').expect("a direction and two holes");
    let dir = DIRECTIONS
        .iter()
        .find(|d| d.0 == dir)
        .unwrap_or_else(|| panic!("unknown direction {dir}"))
        .0;
    let (x, rest) = parse_nat(args);
    let (y, rest) = parse_nat(rest);
    assert_eq!(rest, "", "trailing text after {s}");
    Jump { dir, x, y }
}

/// The 13 jumps of the seed, as it printed them.
const SEED_JUMPS: [&str; 13] = [
    "ne (s (s (s (s z)))) (s z)",
    "w (s (s (s z))) (s (s (s z)))",
    "se (s z) z",
    "se (s z) (s z)",
    "ne (s (s (s z))) z",
    "sw z z",
    "nw (s (s (s (s z)))) (s (s (s (s z))))",
    "w (s (s (s (s z)))) (s (s (s z)))",
    "sw (s (s z)) (s (s z))",
    "e (s (s (s (s z)))) (s z)",
    "se (s (s z)) z",
    "w (s (s (s (s z)))) (s (s (s z)))",
    "e (s (s (s (s z)))) z",
];

// ------------------------------------------------------------------ tests

#[test]
fn the_board_model_reads_numbers_as_printed() {
    assert_eq!(nat_arg(0), "z");
    assert_eq!(nat_arg(3), "(s (s (s z)))");
    assert_eq!(parse_nat("(s (s z)) z"), (2, " z"));
    assert_eq!(
        parse_jump("nw (s (s (s (s z)))) (s (s (s (s z))))"),
        Jump {
            dir: "nw",
            x: 4,
            y: 4
        }
    );
}

#[test]
fn solitaire_makes_thirteen_jumps() {
    let (mut s, _) = session();
    s.load_file(crate_root().join("programs/solitaire.lolli"))
        .expect("the program loads");
    let goal = format!("jump {}", nat_arg(13));
    let mut q = s.query(&goal).expect("the goal parses");
    let first = q.next_answer().expect("no error").map(|a| a.to_string());
    assert_eq!(first, Some("yes".to_string()));
}

#[test]
fn solitaire2_first_answer_is_the_seeds_jumps() {
    let mut goal = "f".to_string();
    for i in (1..=13).rev() {
        goal = format!("j J{i} ({goal})");
    }
    let goal = format!("jump ({goal})");
    let expected: Vec<String> = SEED_JUMPS
        .iter()
        .enumerate()
        .map(|(i, j)| format!("J{} = {j}", i + 1))
        .collect();
    assert_eq!(
        lolli(&["programs/solitaire2.lolli", "-e", &goal]),
        ok(&format!("{}\n", expected.join(", ")))
    );
}

#[test]
fn the_seeds_jumps_are_legal_and_leave_one_peg() {
    let mut board = Board::start();
    assert_eq!(board.pegs(), 14);
    for (i, text) in SEED_JUMPS.iter().enumerate() {
        let j = parse_jump(text);
        assert!(board.legal(j), "jump {} ({text}) is illegal", i + 1);
        board.play(j);
    }
    assert_eq!(board.pegs(), 1);
    // The last peg is not in the hole that started empty (the seed's P.S.).
    assert!(!board.at(2, 1));
}

#[test]
fn short_jump_sequences_are_counted_like_the_model() {
    let board = Board::start();
    for n in [1, 2, 4] {
        let expected = board.sequences_memo(n, &mut HashMap::new());
        assert_eq!(
            lolli(&[
                "programs/solitaire.lolli",
                "--count",
                "-e",
                &format!("jump {}", nat_arg(n))
            ]),
            ok(&format!("{expected}\n")),
            "{n} jumps"
        );
    }
}

#[test]
fn short_jump_sequences_are_listed_like_the_model() {
    // solitaire2 lists the jumps themselves: compare the sets of 2-jump lines.
    let board = Board::start();
    let mut expected = Vec::new();
    for j1 in board.moves() {
        let mut b = board.clone();
        b.play(j1);
        for j2 in b.moves() {
            let show = |j: Jump| {
                format!(
                    "{} {} {}",
                    j.dir,
                    nat_arg(j.x as usize),
                    nat_arg(j.y as usize)
                )
            };
            expected.push(format!("A = {}, B = {}", show(j1), show(j2)));
        }
    }
    let run = lolli(&[
        "programs/solitaire2.lolli",
        "--all",
        "-e",
        "jump (j A (j B f))",
    ]);
    assert_eq!((run.stderr.as_str(), run.code), ("", 0));
    let mut got: Vec<String> = run.stdout.lines().map(String::from).collect();
    got.sort();
    expected.sort();
    assert_eq!(got, expected);
}

/// `programs/solitaire.lolli` with hole `(x, y)` empty and every other full
/// (its `LINEAR b X Y ...` facts rewritten, the rest unchanged), written
/// to a file of its own: the file, and the guard of its temporary directory
/// (the file is there until the guard drops).
fn solitaire_with_hole(x: usize, y: usize) -> (common::TempDir, std::path::PathBuf) {
    let text = std::fs::read_to_string(crate_root().join("programs/solitaire.lolli"))
        .expect("the program reads");
    let hole = format!("LINEAR b {} {} ", nat_arg(x), nat_arg(y));
    let mut out = String::new();
    let mut empties = 0;
    for line in text.lines() {
        if line.starts_with("LINEAR b ") {
            let fact = line.rsplit_once(' ').expect("a fact").0;
            let state = if line.starts_with(&hole) {
                "empty"
            } else {
                "peg"
            };
            empties += usize::from(state == "empty");
            out.push_str(&format!("{fact} {state}.\n"));
        } else {
            out.push_str(line);
            out.push('\n');
        }
    }
    assert_eq!(empties, 1, "hole ({x}, {y}) is on the board");
    let dir = common::temp_dir("seed-holes");
    let path = dir.join(format!("hole-{x}-{y}.lolli"));
    common::write_file(&path, &out);
    (dir, path)
}

/// Every hole of the triangle, row by row.
fn holes() -> impl Iterator<Item = (usize, usize)> {
    (0..5).flat_map(|x| (0..=x).map(move |y| (x, y)))
}

#[test]
fn the_board_model_counts_the_known_games_of_each_start() {
    // Published totals of 13-jump games (one peg left) on the 15-hole
    // triangle, by the empty hole: a corner, the hole next to it on a side,
    // the middle of a side, and an inner hole (the seed's); every other
    // hole is a mirror image of one of these.
    let mut seen = HashMap::new();
    let mut count = |x, y| Board::with_hole(x, y).sequences_memo(13, &mut seen);
    assert_eq!(count(0, 0), 29_760);
    assert_eq!(count(1, 0), 14_880);
    assert_eq!(count(2, 0), 85_258);
    assert_eq!(count(2, 1), 1_550);
    assert_eq!(Board::with_hole(2, 1), Board::start());
}

#[test]
fn jump_sequences_are_counted_like_the_model_from_every_start_hole() {
    // From each of the 15 holes: short games, with and without failure
    // memoization, and in release builds whole games (13 jumps) with it.
    // Without it a whole game tree takes about as long as the seed's
    // centre search (a corner's 2 to 3 times longer), so only two holes
    // that are mirror images of the seed's and a corner's are counted so.
    let mut seen = HashMap::new();
    for (x, y) in holes() {
        let (_dir, program) = solitaire_with_hole(x, y);
        let program = program.to_str().expect("a UTF-8 path");
        let board = Board::with_hole(x, y);
        let mut runs = vec![(4, false), (4, true)];
        if !cfg!(debug_assertions) {
            runs.push((13, true));
            if [(3, 1), (4, 4)].contains(&(x, y)) {
                runs.push((13, false));
            }
        }
        for (n, memo) in runs {
            let expected = ok(&format!("{}\n", board.sequences_memo(n, &mut seen)));
            let goal = format!("jump {}", nat_arg(n));
            let mut args = vec![program, "--count", "-e", &goal];
            if memo {
                args.extend(["--memo", "jump"]);
            }
            assert_eq!(
                lolli(&args),
                expected,
                "hole ({x}, {y}), {n} jumps, memo {memo}"
            );
        }
    }
}

// ------------------------------------------------- Lolli's search order

/// The program's `LINEAR b X Y D` facts for `board`, in file order (row by
/// row), as `first_game` reads a context.
impl Board {
    fn context(&self) -> Vec<(i32, i32, bool)> {
        holes()
            .map(|(x, y)| (x as i32, y as i32, self.peg[x][y]))
            .collect()
    }
}

/// Lolli's search on the triangle, modelled directly: the linear context is
/// a list of `(x, y, peg?)` facts in the order they are tried (the newest
/// assumption first, its three facts in the order written; the program's
/// facts in file order after them), and each of the program's six clauses,
/// in order, takes the first fact that can start its jump, then the two
/// holes the jump needs.  The first sequence of `n` jumps found so is the
/// one the interpreter must find first.
fn first_game(context: &[(i32, i32, bool)], n: usize) -> Option<Vec<Jump>> {
    if n == 0 {
        return Some(Vec::new());
    }
    let find = |x: i32, y: i32| context.iter().position(|&(a, b, _)| (a, b) == (x, y));
    for (dir, dx, dy) in DIRECTIONS {
        for (i, &(x, y, peg)) in context.iter().enumerate() {
            let over = find(x + dx, y + dy).filter(|&k| context[k].2);
            let to = find(x + 2 * dx, y + 2 * dy).filter(|&k| !context[k].2);
            let (true, Some(over), Some(to)) = (peg, over, to) else {
                continue;
            };
            let mut next = vec![
                (x, y, false),
                (x + dx, y + dy, false),
                (x + 2 * dx, y + 2 * dy, true),
            ];
            next.extend(
                (0..context.len())
                    .filter(|k| ![i, over, to].contains(k))
                    .map(|k| context[k]),
            );
            if let Some(mut rest) = first_game(&next, n - 1) {
                rest.insert(0, Jump { dir, x, y });
                return Some(rest);
            }
        }
    }
    None
}

/// The jumps of the first answer to `jump N`, read off its proof: each use
/// of a `jump (s N)` clause consumed the jumping peg, the peg it jumps over
/// and the hole it lands in, in that order (`--moves jump`).
fn jumps_read_off_the_proof(program: &str, n: usize) -> Vec<Jump> {
    let run = lolli(&[
        program,
        "--moves",
        "jump",
        "-e",
        &format!("jump {}", nat_arg(n)),
    ]);
    assert_eq!((run.stderr.as_str(), run.code), ("", 0), "{program}");
    let mut lines = run.stdout.lines();
    assert_eq!(lines.next(), Some("yes"));
    lines
        .filter(|l| l.starts_with("jump (s"))
        .map(|l| {
            let consumed = l
                .split_once("  consumed: ")
                .and_then(|(_, r)| r.split_once("  assumed: "))
                .expect("a use with what it consumed")
                .0;
            let holes: Vec<(i32, i32)> = consumed
                .split(", ")
                .map(|fact| {
                    let args = fact.strip_prefix("b ").expect("a fact of b/3");
                    let (x, rest) = parse_nat(args);
                    let (y, _) = parse_nat(rest);
                    (x, y)
                })
                .collect();
            let [(x, y), _, (tx, ty)] = holes[..] else {
                panic!("three facts consumed: {consumed}");
            };
            let dir = DIRECTIONS
                .iter()
                .find(|d| (x + 2 * d.1, y + 2 * d.2) == (tx, ty))
                .expect("a jump in one of the six directions")
                .0;
            Jump { dir, x, y }
        })
        .collect()
}

#[test]
fn the_search_order_model_finds_the_seeds_jumps() {
    let expected: Vec<Jump> = SEED_JUMPS.iter().map(|j| parse_jump(j)).collect();
    assert_eq!(first_game(&Board::start().context(), 13), Some(expected));
}

#[test]
fn the_first_game_from_every_start_hole_is_the_one_lollis_order_finds_first() {
    // Debug builds search the first 6 jumps (13 take seconds there).
    let n = if cfg!(debug_assertions) { 6 } else { 13 };
    for (x, y) in holes() {
        let board = Board::with_hole(x, y);
        let expected = first_game(&board.context(), n).expect("every start has a game");
        let (_dir, program) = solitaire_with_hole(x, y);
        let got = jumps_read_off_the_proof(program.to_str().expect("a UTF-8 path"), n);
        assert_eq!(got, expected, "hole ({x}, {y}), {n} jumps");
        let mut replay = board.clone();
        for j in &got {
            assert!(replay.legal(*j), "hole ({x}, {y}): {j:?} is illegal");
            replay.play(*j);
        }
        assert_eq!(replay.pegs(), 14 - n);
    }
}
