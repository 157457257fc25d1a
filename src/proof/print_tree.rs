//! The `--proof` (tree) format: one line per step, indented by depth, for
//! people learning linear logic.
//!
//! A line is `RULE GOAL` followed by what the step did:
//! `consumed: R, ...` (an atom that used a linear resource),
//! `swallowed: R, ...` (an erase), `assumed: D, ...` (`-o` and `=>`; an
//! assumed clause as the goal wrote it: `forall x \ p x`, and `{R}` for a
//! part of a `-o` assumed for unbounded use),
//! `clause: FILE:LINE` (the program clause an atom backchained on, or the
//! clause itself when it was assumed), `fresh: c` (forall) and
//! `witness: t` (exists).  `one` and `erase` omit their fixed goal.
//!
//! Invariant: the text is linear in the proof's size.  A step at depth `d`
//! is indented `2 * d` spaces up to [`MAX_INDENT_DEPTH`]; a deeper step is
//! indented as a step at that depth and then shows its depth as `[d] `, so
//! a proof a million levels deep does not print (or hold in memory) the
//! square of its depth in spaces.

use super::tree::{Node, Proof, RuleName};

/// The deepest level indented by spaces alone; deeper steps show their
/// depth as a number (see the module documentation).
pub const MAX_INDENT_DEPTH: usize = 32;

/// The proof as an indented tree (every line ends with a newline).
pub fn tree(proof: &Proof) -> String {
    let mut out = String::new();
    let mut stack: Vec<(usize, &Node)> = vec![(0, &proof.root)];
    while let Some((depth, n)) = stack.pop() {
        indent(&mut out, depth);
        out.push_str(&line(n));
        out.push('\n');
        for c in n.children.iter().rev() {
            stack.push((depth + 1, c));
        }
    }
    out
}

/// The indentation of a step at `depth`: two spaces per level up to
/// [`MAX_INDENT_DEPTH`], then the depth in brackets.
fn indent(out: &mut String, depth: usize) {
    for _ in 0..depth.min(MAX_INDENT_DEPTH) {
        out.push_str("  ");
    }
    if depth > MAX_INDENT_DEPTH {
        out.push('[');
        out.push_str(&depth.to_string());
        out.push_str("] ");
    }
}

/// One step, without indentation.
pub fn line(n: &Node) -> String {
    let mut s = n.rule.as_str().to_string();
    if !matches!(n.rule, RuleName::One | RuleName::Erase) {
        s.push(' ');
        s.push_str(&n.goal_text);
    }
    let mut detail = |label: &str, text: String| {
        s.push_str("   ");
        s.push_str(label);
        s.push_str(": ");
        s.push_str(&text);
    };
    match n.rule {
        RuleName::Atom => {
            if !n.consumed.is_empty() {
                detail("consumed", super::resource_list(&n.consumed));
            }
            if let Some(c) = &n.clause {
                match &c.origin {
                    Some((file, line)) => detail("clause", format!("{file}:{line}")),
                    None if n.consumed.is_empty() => detail("clause", c.instance_text.clone()),
                    None => {}
                }
            }
        }
        RuleName::Erase if !n.consumed.is_empty() => {
            detail("swallowed", super::resource_list(&n.consumed))
        }
        RuleName::Lolli | RuleName::Imp => detail("assumed", super::resource_list(&n.assumed)),
        RuleName::Forall => {
            if let Some(w) = &n.witness {
                detail("fresh", w.text.clone())
            }
        }
        RuleName::Exists => {
            if let Some(w) = &n.witness {
                detail("witness", w.text.clone())
            }
        }
        _ => {}
    }
    s
}
