//! The `--proof=latex` format: the derivation as a sequent-calculus proof
//! for the LaTeX `bussproofs` package, one `prooftree` per answer.
//!
//! Each step concludes `Δ ⊢ G`, where Δ lists the linear resources the
//! subproof uses from outside it (what its atoms consumed and its erases
//! swallowed, less what it assumed itself); unbounded clauses are left
//! implicit.  The rule name labels each inference.  bussproofs takes at most
//! five premises, so more are grouped five by five under unlabelled,
//! line-less joins.  Terms are set in `\texttt`, escaped.

use std::collections::BTreeMap;

use super::tree::{Node, Proof, Resource};

/// The proof as a bussproofs `prooftree`, preceded by the answer as a comment.
pub fn latex(answer: &str, proof: &Proof) -> String {
    let mut out = format!("% {answer}\n\\begin{{prooftree}}\n");
    out.push_str(&super::with_stack(proof.root.depth(), || {
        let mut body = String::new();
        emit(&mut body, &proof.root);
        body
    }));
    out.push_str("\\end{prooftree}\n");
    out
}

/// Emit `n`'s subtree; returns the resources it uses from outside.
fn emit<'p>(out: &mut String, n: &'p Node) -> BTreeMap<u32, &'p Resource> {
    let mut used = BTreeMap::new();
    let count = premises(out, &n.children, &mut used);
    for r in &n.consumed {
        used.insert(r.entry, r);
    }
    for r in &n.assumed {
        used.remove(&r.entry);
    }
    if count == 0 {
        out.push_str("\\AxiomC{}\n");
    }
    let delta: Vec<String> = used.values().map(|r| tt(&r.text)).collect();
    out.push_str(&format!(
        "\\RightLabel{{\\scriptsize {}}}\n\\{}InfC{{{}$\\vdash$ {}}}\n",
        n.rule.as_str().replace('_', "\\_"),
        inference(count.max(1)),
        if delta.is_empty() {
            String::new()
        } else {
            format!("{} ", delta.join(", "))
        },
        tt(&n.goal_text)
    ));
    used
}

/// Emit premises so that at most five stand above the next inference;
/// returns how many do.
fn premises<'p>(
    out: &mut String,
    children: &'p [Node],
    used: &mut BTreeMap<u32, &'p Resource>,
) -> usize {
    if children.len() <= 5 {
        for c in children {
            used.extend(emit(out, c));
        }
        return children.len();
    }
    let size = children.len().div_ceil(5);
    let mut groups = 0;
    for chunk in children.chunks(size) {
        let k = premises(out, chunk, used);
        if k > 1 {
            out.push_str(&format!("\\noLine\n\\{}InfC{{}}\n", inference(k)));
        }
        groups += 1;
    }
    groups
}

fn inference(premises: usize) -> &'static str {
    match premises {
        1 => "Unary",
        2 => "Binary",
        3 => "Trinary",
        4 => "Quaternary",
        _ => "Quinary",
    }
}

/// Text in `\texttt{}`, with LaTeX's special characters escaped.
fn tt(s: &str) -> String {
    let mut out = String::from("\\texttt{");
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\textbackslash{}"),
            '{' | '}' | '_' | '&' | '%' | '#' | '$' => {
                out.push('\\');
                out.push(c);
            }
            '^' => out.push_str("\\^{}"),
            '~' => out.push_str("\\~{}"),
            c => out.push(c),
        }
    }
    out.push('}');
    out
}
