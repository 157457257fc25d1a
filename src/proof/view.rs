//! How answers show their proofs: the `--proof[=FORMAT]`, `--moves PRED`
//! and `--check-proofs` options, shared by the command line and the REPL.

use super::{moves, print_dot, print_json, print_latex, print_tree, Proof};

/// How `--proof` prints derivations.
#[derive(Copy, Clone, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ProofFormat {
    /// An indented tree, one line per step.
    Tree,
    /// One JSON object per answer, on one line.
    Json,
    /// A bussproofs derivation.
    Latex,
    /// A Graphviz graph.
    Dot,
}

/// What to show or check with each answer.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ProofView {
    /// Print the proof in this format.
    pub format: Option<ProofFormat>,
    /// List the uses of this predicate's clauses (`name` or `name/arity`).
    pub moves: Option<String>,
    /// Run the independent checker on every proof.
    pub check: bool,
}

impl ProofView {
    /// Whether proofs must be recorded.
    pub fn active(&self) -> bool {
        self.format.is_some() || self.moves.is_some() || self.check
    }

    /// The text that stands for answer `number` (1-based), proof included,
    /// without a final newline.  `text` is the printed answer, `bindings`
    /// its bindings.
    pub fn show(
        &self,
        text: &str,
        bindings: &[(String, String)],
        number: usize,
        proof: &Proof,
    ) -> String {
        let mut out = match self.format {
            Some(ProofFormat::Json) => print_json::json(bindings, proof),
            Some(ProofFormat::Latex) => print_latex::latex(text, proof),
            Some(ProofFormat::Dot) => print_dot::dot(text, number, proof),
            Some(ProofFormat::Tree) => format!("{text}\n{}", print_tree::tree(proof)),
            None => text.to_string(),
        };
        if let Some(pred) = &self.moves {
            if !out.ends_with('\n') {
                out.push('\n');
            }
            for m in moves::moves(proof, pred) {
                out.push_str(&format!("{m}\n"));
            }
        }
        while out.ends_with('\n') {
            out.pop();
        }
        out
    }
}
