//! Small constructors used by the grammar's actions to build `ast` nodes.
//!
//! Invariant kept here: an `App` never has an `App` head and always has at
//! least one argument (`app` flattens `(f a) b` into `f a b`).

use super::ast::{Quant, Span, Term, TermKind};

/// A node of the given kind and span.
pub(crate) fn term(kind: TermKind, l: usize, r: usize) -> Term {
    Term { kind, span: l..r }
}

/// The name node for an operator symbol written at `l..r`.
pub(crate) fn op(symbol: &str, l: usize, r: usize) -> Term {
    term(TermKind::Name(symbol.to_string()), l, r)
}

/// `head args...` spanning `l..r`, flattening a head that is itself an
/// application.  The arguments keep no spare room: a session keeps the
/// trees of its programs (a file of 100,000 facts, say).
pub(crate) fn app(mut head: Term, mut args: Vec<Term>, l: usize, r: usize) -> Term {
    if args.is_empty() {
        return head;
    }
    args.shrink_to_fit();
    match &mut head.kind {
        TermKind::App(_, first) => {
            first.append(&mut args);
            first.shrink_to_fit();
            head.span = l..r;
            head
        }
        _ => term(TermKind::App(Box::new(head), args), l, r),
    }
}

/// `a OP b` spanning `l..r`, where `op` is the operator's name node.
pub(crate) fn binary(op: Term, a: Term, b: Term, l: usize, r: usize) -> Term {
    term(TermKind::App(Box::new(op), vec![a, b]), l, r)
}

/// A binder spanning `l..r`.
pub(crate) fn binder(
    q: Quant,
    var: String,
    var_span: Span,
    body: Term,
    l: usize,
    r: usize,
) -> Term {
    term(TermKind::Binder(q, var, var_span, Box::new(body)), l, r)
}
