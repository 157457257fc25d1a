//! A triangle board of any size, generated in Rust and solved in Lolli.
//!
//! The Rust side writes the board (one linear `at` fact per hole, with one
//! hole empty) and the table of jump lines; the Lolli side is the same
//! four-line search for every size.  Run with
//! `cargo run --example any_triangle [ROWS ROW COL]`; without arguments it
//! solves the 4-row board with hole (2,1) empty and the 5-row board with
//! hole (3,2) empty.
//!
//! `play` is memoized (`MEMO`, LANGUAGE.md section 10): a position from
//! which no game can be won is searched once, however many move orders
//! lead to it.  In a release build the 36-hole board (`any_triangle 8 1 1`)
//! takes 0.2 s with it and 30 s without.  How long a board takes depends
//! on the order in which moves are tried, not only on its size: from the
//! holes tried, the 7-row and 9-row boards still search for minutes.

use std::io::Write;

use lolli::{Session, Value};

/// The rules: a peg jumps along a line into an empty hole; a game is won
/// when one peg is left (all other facts are `at _ empty`, erased).
const RULES: &str = "
MEMO play.
play nil :- at _ peg, erase.
play (jump A B C :: Moves) :-
    at C empty, line A B C, at A peg, at B peg,
    ((at A empty, at B empty, at C peg) -o play Moves).
";

/// Holes are (row, column) with 1 <= column <= row <= n.
fn holes(n: i64) -> Vec<(i64, i64)> {
    (1..=n).flat_map(|r| (1..=r).map(move |c| (r, c))).collect()
}

/// Every line of three holes, in both directions.
fn lines(n: i64) -> Vec<[(i64, i64); 3]> {
    let on = |(r, c): (i64, i64)| 1 <= c && c <= r && r <= n;
    let mut out = Vec::new();
    for h in holes(n) {
        for (dr, dc) in [(0, 1), (1, 0), (1, 1), (0, -1), (-1, 0), (-1, -1)] {
            let b = (h.0 + dr, h.1 + dc);
            let c = (h.0 + 2 * dr, h.1 + 2 * dc);
            if on(b) && on(c) {
                out.push([h, b, c]);
            }
        }
    }
    out
}

fn hole((r, c): (i64, i64)) -> String {
    format!("(h {r} {c})")
}

/// Solve the n-row board with `empty` empty; the moves, or None.
fn solve(n: i64, empty: (i64, i64)) -> Result<Option<Vec<String>>, String> {
    let mut s = Session::new();
    s.load_str("rules", RULES).map_err(|e| s.render(&e))?;
    for [a, b, c] in lines(n) {
        s.add_clause(&format!("line {} {} {}", hole(a), hole(b), hole(c)))
            .map_err(|e| s.render(&e))?;
    }
    let facts: Vec<String> = holes(n)
        .into_iter()
        .map(|h| {
            let what = if h == empty { "empty" } else { "peg" };
            format!("at {} {what}.", hole(h))
        })
        .collect();
    s.add_resource(&facts.join("\n"))
        .map_err(|e| s.render(&e))?;
    let pegs = n * (n + 1) / 2 - 1;
    let goal = format!("length Moves {}, play Moves", pegs - 1);
    let mut q = s.query(&goal).map_err(|e| format!("{e:?}"))?;
    let Some(answer) = q.next() else {
        return Ok(None);
    };
    let answer = answer.map_err(|e| format!("{e:?}"))?;
    let moves = answer
        .value("Moves")
        .and_then(Value::as_list)
        .unwrap_or_default();
    Ok(Some(moves.iter().map(|m| m.to_string()).collect()))
}

fn main() -> Result<(), String> {
    let args: Vec<i64> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let boards = match args[..] {
        [n, r, c] => vec![(n, (r, c))],
        _ => vec![(4, (2, 1)), (5, (3, 2))],
    };
    // Written with `writeln!`, not `println!`: when the reader goes away
    // (`| head`), the example stops quietly instead of panicking.
    let mut out = std::io::stdout().lock();
    for (n, empty) in boards {
        let mut text = format!("{n} rows, hole {empty:?} empty:\n");
        match solve(n, empty)? {
            Some(moves) => {
                for m in moves {
                    text.push_str(&format!("  {m}\n"));
                }
            }
            None => text.push_str("  no way to leave one peg\n"),
        }
        if out.write_all(text.as_bytes()).is_err() {
            break;
        }
    }
    Ok(())
}
