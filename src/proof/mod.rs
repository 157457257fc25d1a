//! Proof terms: the derivation behind every answer, its printers, and an
//! independent checker.
//!
//! The engine records a log of the rules it applied on the successful
//! branch (`Machine::proof`, when `Options::proofs` is on); [`build()`] turns
//! it into an owned [`Proof`] after an answer.  The printers show a proof as
//! an indented tree ([`print_tree`]), JSON lines ([`print_json`]), a
//! bussproofs derivation ([`print_latex`]) or a Graphviz graph
//! ([`print_dot`]); [`moves`] lists the uses of one predicate's clauses with
//! the resources each consumed and assumed; [`check()`] verifies a proof
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
pub mod view;

pub use build::{build, build_within, ProofSize};
pub use check::{check, CheckError, Problem};
pub use term::Term;
pub use tree::{ClauseUse, Node, Proof, Resource, RuleName, Witness};

/// Resources printed as a comma-separated list; a clause that is not an
/// atom (`h :- b`, `a & b`, `forall x \ p x`, ...) is parenthesized so the
/// commas stay separators, unless it is printed in braces (`{h :- b}`, an
/// unbounded assumption).  An empty list prints as `none`.
pub(crate) fn resource_list(rs: &[Resource]) -> String {
    if rs.is_empty() {
        return "none".to_string();
    }
    rs.iter()
        .map(|r| {
            // A quantifier is printed only where the clause's text was
            // taken as written (an assumption's), and its clause term has
            // the bound names made slots: so the text says.
            let compound_clause = !r.text.starts_with('{')
                && (r.text.starts_with("forall ")
                    || matches!(
                        r.clause.functor(),
                        Some((":-" | "<=" | "-o" | "=>" | "&" | "," | ";" | "forall", _))
                    ));
            if compound_clause {
                format!("({})", r.text)
            } else {
                r.text.clone()
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}
