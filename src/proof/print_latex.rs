//! The `--proof=latex` format: the derivation as a sequent-calculus proof
//! for the LaTeX `bussproofs` package, one `prooftree` per answer.
//!
//! Each step concludes `Δ ⊢ G`, where Δ lists the linear resources the
//! subproof uses from outside it (what its atoms consumed and its erases
//! swallowed, less what it assumed itself); unbounded clauses are left
//! implicit.  The rule name labels each inference.  bussproofs takes at most
//! five premises, so more are grouped five by five under unlabelled,
//! line-less joins.  Terms are set in `\texttt`, escaped.
//!
//! Invariant: the text is linear in the proof's size.  Δ repeats at every
//! step below the one that consumed its resources, so a long Δ shows at
//! most [`MAX_DELTA`] resources and [`MAX_DELTA_CHARS`] characters of them,
//! then `\ldots{} (N more)`; a goal shows at most [`MAX_GOAL_CHARS`]
//! characters, so that every line can be typeset.

use std::collections::BTreeMap;

use super::tree::{Node, Proof, Resource};

/// The proof as a bussproofs `prooftree`, preceded by the answer as a comment.
pub fn latex(answer: &str, proof: &Proof) -> String {
    let mut out = format!("% {answer}\n\\begin{{prooftree}}\n");
    emit(&mut out, &proof.root);
    out.push_str("\\end{prooftree}\n");
    if !out.is_ascii() {
        // pdflatex stops at the first character it has no definition for.
        out.insert_str(
            0,
            "% the proof has characters beyond ASCII: typeset it with xelatex or \
             lualatex, or declare them with \\newunicodechar\n",
        );
    }
    out
}

/// Emit `n`'s subtree; returns the resources it uses from outside.
fn emit<'p>(out: &mut String, n: &'p Node) -> BTreeMap<u32, &'p Resource> {
    crate::util::deep(|| {
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
        let delta = shown_delta(&used);
        out.push_str(&format!(
            "\\RightLabel{{\\scriptsize {}}}\n\\{}InfC{{{}$\\vdash$ {}}}\n",
            n.rule.as_str().replace('_', "\\_"),
            inference(count.max(1)),
            if delta.is_empty() {
                String::new()
            } else {
                format!("{} ", delta.join(", "))
            },
            goal_tt(&n.goal_text)
        ));
        used
    })
}

/// The most characters of a goal a step shows: TeX cannot set a line
/// much longer than about 3,000 characters of `\texttt`.
pub const MAX_GOAL_CHARS: usize = 2000;

/// A step's goal in `\texttt{}`, cut after [`MAX_GOAL_CHARS`] characters
/// with `\ldots{} (N more characters)`.
fn goal_tt(goal: &str) -> String {
    match goal.char_indices().nth(MAX_GOAL_CHARS) {
        None => tt(goal),
        Some((cut, _)) => format!(
            "{}\\ldots{{}} ({} more characters)",
            tt(&goal[..cut]),
            goal[cut..].chars().count()
        ),
    }
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

/// The most resources a step's Δ shows.
pub const MAX_DELTA: usize = 8;

/// The most characters of resource text a step's Δ shows.
pub const MAX_DELTA_CHARS: usize = 1000;

/// Δ as printed: the resources in order, at most [`MAX_DELTA`] of them
/// and [`MAX_DELTA_CHARS`] characters of their text, with a final
/// `\ldots{} (N more)` for the rest.  A resource whose text does not fit
/// in what is left of the budget is passed over, not the ones after it:
/// one long resource does not hide the short ones.
fn shown_delta(used: &BTreeMap<u32, &Resource>) -> Vec<String> {
    let mut shown = Vec::new();
    let mut chars = 0;
    for r in used.values() {
        if shown.len() == MAX_DELTA {
            break;
        }
        if chars + r.text.len() <= MAX_DELTA_CHARS {
            chars += r.text.len();
            shown.push(tt(&r.text));
        }
    }
    if shown.len() < used.len() {
        shown.push(format!("\\ldots{{}} ({} more)", used.len() - shown.len()));
    }
    shown
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
