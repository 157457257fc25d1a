//! `--moves PRED`: the uses of one predicate's clauses, in proof order.
//!
//! One line per atom step whose goal is a PRED atom (PRED is `name` or
//! `name/arity`), in preorder:
//!
//! ```text
//! INSTANCE  consumed: R1, R2, ...  assumed: D1, D2, ...
//! ```
//!
//! INSTANCE is the clause instance used (for a linear resource, the
//! resource).  `consumed` lists the linear resources used by the step's
//! subproof — by atoms and by erases — and `assumed` the clauses its `-o` /
//! `=>` steps assumed, both in proof order and not counting what nested uses
//! of PRED did (they have lines of their own).  Replaying the lines in order
//! replays the proof's resource changes: remove what is consumed, add what
//! is assumed.  A clause that is not an atom is parenthesized; an empty
//! list prints as `none`.

use super::tree::{Node, Proof, Resource, RuleName};

/// One use of a PRED clause.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Move {
    /// The clause instance, printed.
    pub instance: String,
    /// Linear resources used by this step's subproof (not by nested uses).
    pub consumed: Vec<Resource>,
    /// Clauses assumed in this step's subproof (not by nested uses).
    pub assumed: Vec<Resource>,
}

impl std::fmt::Display for Move {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}  consumed: {}  assumed: {}",
            self.instance,
            super::resource_list(&self.consumed),
            super::resource_list(&self.assumed)
        )
    }
}

/// Whether step `n` uses a clause of `pred` (`name` or `name/arity`).
fn is_use(n: &Node, pred: &str) -> bool {
    if n.rule != RuleName::Atom {
        return false;
    }
    let Some((name, args)) = n.goal.functor() else {
        return false;
    };
    match pred.rsplit_once('/') {
        Some((p, arity)) if arity.parse::<usize>().is_ok() => {
            p == name && arity.parse::<usize>() == Ok(args.len())
        }
        _ => pred == name,
    }
}

/// The uses of `pred`'s clauses in `proof`, in preorder.
pub fn moves(proof: &Proof, pred: &str) -> Vec<Move> {
    let mut out = Vec::new();
    for n in proof.root.nodes() {
        if !is_use(n, pred) {
            continue;
        }
        let mut m = Move {
            instance: n
                .clause
                .as_ref()
                .map_or_else(|| n.goal_text.clone(), |c| c.instance_text.clone()),
            consumed: Vec::new(),
            assumed: Vec::new(),
        };
        // The step's own subproof, stopping at nested uses.
        let mut stack = vec![n];
        while let Some(s) = stack.pop() {
            if matches!(s.rule, RuleName::Atom | RuleName::Erase) {
                m.consumed.extend(s.consumed.iter().cloned());
            }
            m.assumed.extend(s.assumed.iter().cloned());
            for c in s.children.iter().rev() {
                if !is_use(c, pred) {
                    stack.push(c);
                }
            }
        }
        out.push(m);
    }
    out
}
