//! The syntax tree produced by the parser: every node carries its byte span.
//!
//! Formulas are terms (as in Lolli 0.94): a connective is an application of
//! an operator name (`,` `&` `;` `-o` `=>` `:-` `<=` `-->` `--o` and the
//! comparison and arithmetic operators) to its two operands, `{G}` is the
//! name `{}` applied to `G`, and the guard `G1 -> G2 | G3` is the name `->`
//! applied to three arguments.  Only the binders `forall x \ F` and
//! `exists x \ F` have a node of their own, because they bind a name.
//!
//! Invariants: an `App` has at least one argument and its head is never an
//! `App` (curried applications are flattened: `f a b` is `App(f, [a, b])`,
//! `(f a) b` as well); spans are byte ranges into the source text that was
//! parsed.

use std::ops::Range;

/// A byte range in one source text.
pub type Span = Range<usize>;

/// A term with its span.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Term {
    /// What the term is.
    pub kind: TermKind,
    /// Where it is in the source.
    pub span: Span,
}

/// Dropped without recursion: a term nested as deep as a long list or a
/// numeral of the source would otherwise take a stack frame per level.
impl Drop for Term {
    fn drop(&mut self) {
        let mut below = Vec::new();
        take_subterms(&mut self.kind, &mut below);
        while let Some(mut t) = below.pop() {
            take_subterms(&mut t.kind, &mut below);
        }
    }
}

/// Move the subterms of `kind` that have subterms of their own to `out`
/// (the others are dropped with it at once).
fn take_subterms(kind: &mut TermKind, out: &mut Vec<Term>) {
    let compound = |t: &Term| matches!(t.kind, TermKind::App(..) | TermKind::Binder(..));
    match kind {
        TermKind::App(head, args) => {
            if compound(head) {
                out.push(std::mem::replace(&mut **head, Term::leaf()));
            }
            out.extend(args.drain(..).filter(compound));
        }
        TermKind::Binder(_, _, _, body) if compound(body) => {
            out.push(std::mem::replace(&mut **body, Term::leaf()));
        }
        _ => {}
    }
}

impl Term {
    /// A placeholder left where a subterm was taken out to be dropped.
    fn leaf() -> Term {
        Term {
            kind: TermKind::Wildcard,
            span: 0..0,
        }
    }
}

/// The quantifier of a binder.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Quant {
    /// `forall x \ F`
    Forall,
    /// `exists x \ F`
    Exists,
}

/// The shapes of terms.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TermKind {
    /// A named logic variable (starts with an upper-case letter or `_`, and is not a lone `_`).
    Var(String),
    /// The anonymous variable `_`: every occurrence is a fresh variable.
    Wildcard,
    /// A constant: a lower-case identifier, a quoted name (`'any text'`, stored unquoted),
    /// or an operator symbol used as the head of a connective.
    Name(String),
    /// An integer literal.
    Int(i64),
    /// A string literal `"..."`, with escapes resolved.
    Str(String),
    /// Curried application, flattened: the head applied to one or more arguments.
    App(Box<Term>, Vec<Term>),
    /// `forall x \ F` or `exists x \ F`: the bound name (any identifier), its span, the body.
    Binder(Quant, String, Span, Box<Term>),
}

/// A top-level item of a program file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Item {
    /// `MODULE name P1 ... Pn.`: the module's name and its parameter variables.
    Module {
        /// The module name.
        name: String,
        /// Span of the name.
        name_span: Span,
        /// Parameter names (variables) with their spans.
        params: Vec<(String, Span)>,
        /// Span of the whole declaration.
        span: Span,
    },
    /// `LINEAR clause.`: the clause becomes a linear resource when the module is loaded.
    Linear(Term, Span),
    /// `LOCAL n1 ... nk.`: names made fresh for each loading of the module.
    Local(Vec<(String, Span)>, Span),
    /// `MEMO n1 ... nk.`: predicates marked for failure memoization.
    Memo(Vec<(String, Span)>, Span),
    /// An ordinary clause (unbounded: usable any number of times).
    Clause(Term),
}
