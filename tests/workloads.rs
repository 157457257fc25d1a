//! The benchmark workloads of `bench/` (issue 6), each run once through the
//! binary at a reduced size, with its answer checked.  The full sizes are
//! for `bench/run`; here the triangle workloads make fewer jumps or start
//! from a smaller board, and the expected numbers come from a model of the
//! triangle written in Rust, independent of the interpreter.  The model
//! itself is checked at full size against the seeds: 1550 games of 13 jumps,
//! none of them ending in the start hole (seed 004), and seed 003's census.

mod common;

use std::collections::{BTreeMap, HashMap};
use std::process::Command;

use common::{crate_root, lolli, ok, temp_dir, write_file};
use pretty_assertions::assert_eq;

// ------------------------------------------------------------ board model

/// The six jump directions as (row, column) steps.
const DIRECTIONS: [(i32, i32); 6] = [(1, 0), (1, 1), (0, 1), (-1, 0), (-1, -1), (0, -1)];

/// A triangle board, one bit per hole: hole (x, y), row x in 0..5 and
/// column y in 0..=x, is bit x(x+1)/2 + y.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
struct Board(u16);

/// The bit of hole (x, y), if it is on the board.
fn hole(x: i32, y: i32) -> Option<u16> {
    ((0..5).contains(&x) && (0..=x).contains(&y)).then(|| 1 << (x * (x + 1) / 2 + y))
}

impl Board {
    /// The seed's start: every hole full but (2,1).
    fn start() -> Board {
        Board(0x7fff & !hole(2, 1).unwrap_or(0))
    }

    fn has(self, x: i32, y: i32) -> bool {
        hole(x, y).is_some_and(|b| self.0 & b != 0)
    }

    fn pegs(self) -> u32 {
        self.0.count_ones()
    }

    /// The boards one jump away, one per legal jump.
    fn next(self) -> impl Iterator<Item = Board> {
        JUMPS.iter().filter_map(move |&(from, over, to)| {
            (self.0 & from != 0 && self.0 & over != 0 && self.0 & to == 0)
                .then_some(Board(self.0 & !from & !over | to))
        })
    }

    /// How many sequences of `n` jumps from here end on a board that
    /// satisfies `end` (memoized by board and `n`).
    fn sequences(self, n: usize, end: &impl Fn(Board) -> bool, memo: &mut Memo) -> u64 {
        if n == 0 {
            return end(self) as u64;
        }
        if let Some(&c) = memo.get(&(self, n)) {
            return c;
        }
        let c = self.next().map(|b| b.sequences(n - 1, end, memo)).sum();
        memo.insert((self, n), c);
        c
    }

    /// Every complete game from here (jumps until none is possible),
    /// counted by the pegs left (memoized by board).
    fn games(self, memo: &mut HashMap<Board, BTreeMap<u32, u64>>) -> BTreeMap<u32, u64> {
        if let Some(g) = memo.get(&self) {
            return g.clone();
        }
        let mut out = BTreeMap::new();
        let mut stuck = true;
        for b in self.next() {
            stuck = false;
            for (pegs, n) in b.games(memo) {
                *out.entry(pegs).or_default() += n;
            }
        }
        if stuck {
            out.insert(self.pegs(), 1);
        }
        memo.insert(self, out.clone());
        out
    }

    /// The number of `n`-jump sequences from here ending on a board that
    /// satisfies `end`.
    fn count(self, n: usize, end: impl Fn(Board) -> bool) -> u64 {
        self.sequences(n, &end, &mut HashMap::new())
    }

    /// The census of complete games from here: pegs left → games.
    fn census(self) -> BTreeMap<u32, u64> {
        self.games(&mut HashMap::new())
    }
}

/// Memoized sequence counts by board and number of jumps.
type Memo = HashMap<(Board, usize), u64>;

/// Every jump on the board as (from, over, to) hole bits.
static JUMPS: std::sync::LazyLock<Vec<(u16, u16, u16)>> = std::sync::LazyLock::new(|| {
    let mut out = Vec::new();
    for x in 0..5 {
        for y in 0..=x {
            for (dx, dy) in DIRECTIONS {
                if let (Some(from), Some(over), Some(to)) = (
                    hole(x, y),
                    hole(x + dx, y + dy),
                    hole(x + 2 * dx, y + 2 * dy),
                ) {
                    out.push((from, over, to));
                }
            }
        }
    }
    out
});

/// `n` in successor notation, as an argument: `(s (s z))`, or `z`.
fn nat(n: usize) -> String {
    let mut t = "z".to_string();
    for _ in 0..n {
        t = format!("(s {t})");
    }
    t
}

/// The census of complete games from `board` as `census P` answers it, one
/// line per game.  The program computes the pegs left as 14 minus the jumps
/// made (exact for the seed's 14-peg start), so a smaller board's counts
/// are shifted by the pegs it lacks.
fn census_lines(board: Board) -> String {
    let missing = 14 - board.pegs();
    let mut lines: Vec<String> = Vec::new();
    for (pegs, n) in board.census() {
        for _ in 0..n {
            lines.push(format!("P = {}", pegs + missing));
        }
    }
    lines.sort();
    lines.join("\n")
}

fn sorted_lines(text: &str) -> String {
    let mut lines: Vec<&str> = text.lines().collect();
    lines.sort();
    lines.join("\n")
}

// ------------------------------------------------ the model against the seeds

#[test]
fn the_model_counts_the_seeds_games() {
    let start = Board::start();
    assert_eq!(start.pegs(), 14);
    assert_eq!(start.count(13, |_| true), 1550);
    // Seed 004's P.S.: no game of 13 jumps leaves its peg in the start hole.
    assert_eq!(start.count(13, |b| b.has(2, 1)), 0);
    // Seed 003's census: complete games by pegs left.
    let by_pegs: Vec<(u32, u64)> = start.census().into_iter().collect();
    assert_eq!(
        by_pegs,
        [
            (1, 1550),
            (2, 20686),
            (3, 62736),
            (4, 46728),
            (5, 5688),
            (6, 374),
            (7, 82),
            (10, 2)
        ]
    );
}

// ---------------------------------------------------- the workloads, reduced

#[test]
fn first_finds_ten_jumps() {
    // (tests/seed.rs runs the full size, 13 jumps.)
    assert!(Board::start().count(10, |_| true) > 0);
    assert_eq!(
        lolli(&[
            "programs/solitaire.lolli",
            "-e",
            &format!("jump {}", nat(10))
        ]),
        ok("yes\n")
    );
}

#[test]
fn count_counts_short_games_like_the_model() {
    let expected = Board::start().count(6, |_| true);
    assert_eq!(
        lolli(&[
            "programs/solitaire.lolli",
            "--count",
            "-e",
            &format!("jump {}", nat(6))
        ]),
        ok(&format!("{expected}\n"))
    );
}

#[test]
fn the_variants_count_short_games_like_the_model() {
    // The seed's search written two other ways (`bench/run variants`):
    // the moves recorded in the head, and the jumps counted by an integer.
    let expected = Board::start().count(6, |_| true);
    let moves = (1..=6)
        .rev()
        .fold("f".to_string(), |t, i| format!("(j J{i} {t})"));
    assert_eq!(
        lolli(&[
            "programs/solitaire2.lolli",
            "--count",
            "-e",
            &format!("jump {moves}")
        ]),
        ok(&format!("{expected}\n"))
    );
    assert_eq!(
        lolli(&["bench/counted.lolli", "--count", "-e", "jump 6"]),
        ok(&format!("{expected}\n"))
    );
}

#[test]
fn centre_counts_short_games_ending_in_the_start_hole_like_the_model() {
    let run = |n: usize| {
        lolli(&[
            "bench/centre.lolli",
            "--count",
            "-e",
            &format!("jump {}", nat(n)),
        ])
    };
    for n in [2, 6] {
        let expected = Board::start().count(n, |b| b.has(2, 1));
        assert!(expected > 0, "{n} jumps: the check is not vacuous");
        assert_eq!(run(n), ok(&format!("{expected}\n")), "{n} jumps");
    }
}

#[test]
fn census_counts_the_games_of_a_smaller_board_like_the_model() {
    // The census program with the bottom row of the board emptied: 9 pegs.
    let text = std::fs::read_to_string(crate_root().join("bench/census.lolli"))
        .expect("bench/census.lolli is readable");
    let bottom = "LINEAR b (s (s (s (s z))))";
    let mut emptied = 0;
    let smaller: String = text
        .lines()
        .map(|l| {
            if l.starts_with(bottom) && l.ends_with(" peg.") {
                emptied += 1;
                format!("{} empty.\n", &l[..l.len() - " peg.".len()])
            } else {
                format!("{l}\n")
            }
        })
        .collect();
    assert_eq!(emptied, 5, "the board's bottom row is in the program");
    let dir = temp_dir("census");
    write_file(&dir.join("census.lolli"), &smaller);
    let path = dir.join("census.lolli");
    let run = lolli(&[&path.to_string_lossy(), "--all", "-e", "census P"]);
    let mut board = Board::start();
    for y in 0..5 {
        board.0 &= !hole(4, y).unwrap_or(0);
    }
    assert_eq!(board.pegs(), 9);
    let expected = census_lines(board);
    assert!(expected.lines().count() > 100, "the check is not vacuous");
    assert_eq!((run.code, run.stderr.as_str()), (0, ""));
    assert_eq!(sorted_lines(&run.stdout), expected);
}

#[test]
fn wide_consumes_a_thousand_facts_by_key() {
    let n: u64 = 1000;
    let gen = Command::new("bash")
        .arg(crate_root().join("bench/gen-wide"))
        .arg(n.to_string())
        .output()
        .expect("bench/gen-wide runs");
    assert!(gen.status.success());
    let items = String::from_utf8_lossy(&gen.stdout).into_owned();
    assert_eq!(
        items
            .lines()
            .filter(|l| l.starts_with("LINEAR item"))
            .count(),
        1000
    );
    assert!(items.contains("\nLINEAR item 999 2998.\n"));
    let dir = temp_dir("wide");
    write_file(&dir.join("items.lolli"), &items);
    let items_path = dir.join("items.lolli");
    let sum = 3 * n * (n - 1) / 2 + n;
    assert_eq!(
        lolli(&[
            "bench/wide.lolli",
            &items_path.to_string_lossy(),
            "-e",
            &format!("wide {n} S")
        ]),
        ok(&format!("S = {sum}\n"))
    );
    // One fact left over: no answer.
    assert_eq!(
        lolli(&[
            "bench/wide.lolli",
            &items_path.to_string_lossy(),
            "-e",
            &format!("wide {} S", n - 1)
        ])
        .stdout,
        "no\n"
    );
}

#[test]
fn deep_nests_a_hundred_thousand_linear_assumptions() {
    assert_eq!(
        lolli(&["bench/deep.lolli", "-e", "deep 100000 C"]),
        ok("C = 100000\n")
    );
}

#[test]
fn nrev_reverses_in_a_loop_that_leaves_no_choice_point() {
    // 500 rounds; and the list itself, reversed once.
    assert_eq!(lolli(&["bench/nrev.lolli", "-e", "bench 500"]), ok("yes\n"));
    assert_eq!(
        lolli(&["bench/nrev.lolli", "-e", "range 0 5 L, nrev L R"]),
        ok("L = 0 :: 1 :: 2 :: 3 :: 4 :: nil, R = 4 :: 3 :: 2 :: 1 :: 0 :: nil\n")
    );
}
