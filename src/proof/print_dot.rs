//! The `--proof=dot` format: a Graphviz digraph per answer, one box per
//! step (rule, goal, and what it consumed or assumed), edges from a step to
//! its premises.  The answer is a `//` comment above the graph; graphs are
//! named `proof1`, `proof2`, ... by answer number.

use super::tree::{Node, Proof};

/// The proof as a Graphviz graph named `proof{number}`.
pub fn dot(answer: &str, number: usize, proof: &Proof) -> String {
    let mut out = format!(
        "// {answer}\ndigraph proof{number} {{\n  node [shape=box, fontname=\"monospace\"];\n"
    );
    let mut next = 0usize;
    let mut stack: Vec<(usize, &Node)> = vec![(0, &proof.root)];
    next += 1;
    while let Some((id, n)) = stack.pop() {
        let text = super::print_tree::line(n).replace("   ", "\n");
        out.push_str(&format!("  n{id} [label=\"{}\"];\n", escape(&text)));
        for c in &n.children {
            out.push_str(&format!("  n{id} -> n{next};\n"));
            stack.push((next, c));
            next += 1;
        }
    }
    out.push_str("}\n");
    out
}

/// Escape a label for a double-quoted DOT string (newlines become `\n`).
fn escape(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out
}
