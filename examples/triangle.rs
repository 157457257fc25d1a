//! Solve the triangle peg solitaire of seed 004 from Rust.
//!
//! Loads `programs/solitaire2.lolli` (the board and the jump rules), asks
//! for 13 jumps, and prints them from the answer's values.  Run with
//! `cargo run --release --example triangle` (a debug build takes seconds).
//! The same answer as a query string: the program text, not Rust, decides.

use std::io::Write;

use lolli::{Session, Value};

fn main() -> Result<(), String> {
    let mut session = Session::new();
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/programs/solitaire2.lolli");
    session
        .load_file(path)
        .map_err(|errs| session.render(&errs))?;
    // jump (j J1 (j J2 ... (j J13 f)))
    let mut goal = String::from("f");
    for i in (1..=13).rev() {
        goal = format!("j J{i} ({goal})");
    }
    let goal = format!("jump ({goal})");
    let mut query = session.query(&goal).map_err(|e| format!("{e:?}"))?;
    let Some(answer) = query.next() else {
        println!("no solution");
        return Ok(());
    };
    let answer = answer.map_err(|e| format!("{e:?}"))?;
    let mut text = String::new();
    for i in 1..=13 {
        if let Some(Value::Compound(dir, args)) = answer.value(&format!("J{i}")) {
            let hole: Vec<i64> = args.iter().map(peano).collect();
            text.push_str(&format!(
                "{i:2}: {dir:2} from row {} column {}\n",
                hole[0], hole[1]
            ));
        }
    }
    // One write whose failure (the reader went away) is not an error.
    let _ = std::io::stdout().lock().write_all(text.as_bytes());
    Ok(())
}

/// The number a successor term `s (s ... z)` stands for.
fn peano(v: &Value) -> i64 {
    let mut n = 0;
    let mut v = v;
    while let Value::Compound(f, args) = v {
        if f != "s" || args.len() != 1 {
            break;
        }
        n += 1;
        v = &args[0];
    }
    n
}
