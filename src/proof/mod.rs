//! Proof terms: the derivation behind every answer, its printers, and an
//! independent checker.
//!
//! The engine records a log of the rules it applied on the successful
//! branch (`Machine::proof`, when `Options::proofs` is on); [`build`] turns
//! it into an owned [`Proof`] after an answer.  The printers show a proof as
//! an indented tree ([`print_tree`]), JSON lines ([`print_json`]), a
//! bussproofs derivation ([`print_latex`]) or a Graphviz graph
//! ([`print_dot`]); [`moves`] lists the uses of one predicate's clauses with
//! the resources each consumed and assumed; [`check`] verifies a proof
//! without the search code.

pub mod build;
pub mod check;
pub mod moves;
pub mod print_dot;
pub mod print_json;
pub mod print_latex;
pub mod print_tree;
pub mod term;
pub mod tree;

pub use build::build;
pub use check::{check, CheckError, Problem};
pub use term::Term;
pub use tree::{ClauseUse, Node, Proof, Resource, RuleName, Witness};

/// Resources printed as a comma-separated list; a clause that is not an
/// atom (`h :- b`, `a & b`, ...) is parenthesized so the commas stay
/// separators.  An empty list prints as `none`.
pub(crate) fn resource_list(rs: &[Resource]) -> String {
    if rs.is_empty() {
        return "none".to_string();
    }
    rs.iter()
        .map(|r| {
            let compound_clause = matches!(
                r.clause.functor(),
                Some((":-" | "<=" | "-o" | "=>" | "&" | "," | ";" | "forall", _))
            );
            if compound_clause {
                format!("({})", r.text)
            } else {
                r.text.clone()
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}
