//! Owned terms: the terms of a recorded proof, detached from the machine's
//! heap so that the checker and library users can read them without it.
//!
//! Invariants: a term is fully dereferenced (no bound variable appears);
//! a compound term has at least one argument (a name with no arguments is an
//! [`Term::Atom`]); [`Term::Slot`] occurs only in clause schemas (the
//! universally quantified variables of a clause).
//!
//! The [`fmt::Display`] form is plain and fully parenthesised; it is meant
//! for the checker's messages.  Proof output uses the interpreter's printer
//! (the `*_text` fields of [`super::tree`]), so that variable names agree
//! with the answer.

use std::fmt;

/// A term of a proof.  Cloning, comparing, hashing and `Debug` recurse on
/// the arguments through [`crate::util::deep`], and dropping does not
/// recurse, so that a term nested as deep as the program's terms is
/// handled on any thread.
#[derive(Eq)]
pub enum Term {
    /// A logic variable left unbound by the answer, by identity.
    Var(u32),
    /// A constant.
    Atom(String),
    /// An integer.
    Int(i64),
    /// A string literal.
    Str(String),
    /// A fresh constant made by `forall` (an eigenvariable), by identity.
    Const {
        /// Identity of the constant.
        id: u32,
        /// The name written in the binder.
        name: String,
    },
    /// The variable bound by a `forall`/`exists` binder in a goal.
    Bound {
        /// Identity of the binder.
        id: u32,
        /// The name written in the binder.
        name: String,
    },
    /// A universally quantified variable of a clause schema.
    Slot(u32),
    /// A compound term `name arg1 ... argn` (n ≥ 1).
    App(String, Vec<Term>),
}

impl Clone for Term {
    fn clone(&self) -> Term {
        crate::util::deep(|| match self {
            Term::Var(v) => Term::Var(*v),
            Term::Atom(n) => Term::Atom(n.clone()),
            Term::Int(i) => Term::Int(*i),
            Term::Str(s) => Term::Str(s.clone()),
            Term::Const { id, name } => Term::Const {
                id: *id,
                name: name.clone(),
            },
            Term::Bound { id, name } => Term::Bound {
                id: *id,
                name: name.clone(),
            },
            Term::Slot(s) => Term::Slot(*s),
            Term::App(n, args) => Term::App(n.clone(), args.clone()),
        })
    }
}

impl PartialEq for Term {
    fn eq(&self, other: &Term) -> bool {
        crate::util::deep(|| match (self, other) {
            (Term::Var(a), Term::Var(b)) | (Term::Slot(a), Term::Slot(b)) => a == b,
            (Term::Atom(a), Term::Atom(b)) | (Term::Str(a), Term::Str(b)) => a == b,
            (Term::Int(a), Term::Int(b)) => a == b,
            (Term::Const { id: a, name: x }, Term::Const { id: b, name: y })
            | (Term::Bound { id: a, name: x }, Term::Bound { id: b, name: y }) => a == b && x == y,
            (Term::App(f, xs), Term::App(g, ys)) => f == g && xs == ys,
            _ => false,
        })
    }
}

impl std::hash::Hash for Term {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        crate::util::deep(|| {
            std::mem::discriminant(self).hash(state);
            match self {
                Term::Var(v) | Term::Slot(v) => v.hash(state),
                Term::Atom(n) | Term::Str(n) => n.hash(state),
                Term::Int(i) => i.hash(state),
                Term::Const { id, name } | Term::Bound { id, name } => {
                    id.hash(state);
                    name.hash(state);
                }
                Term::App(n, args) => {
                    n.hash(state);
                    args.hash(state);
                }
            }
        })
    }
}

impl fmt::Debug for Term {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        crate::util::deep(|| match self {
            Term::Var(v) => f.debug_tuple("Var").field(v).finish(),
            Term::Atom(n) => f.debug_tuple("Atom").field(n).finish(),
            Term::Int(i) => f.debug_tuple("Int").field(i).finish(),
            Term::Str(s) => f.debug_tuple("Str").field(s).finish(),
            Term::Const { id, name } => f
                .debug_struct("Const")
                .field("id", id)
                .field("name", name)
                .finish(),
            Term::Bound { id, name } => f
                .debug_struct("Bound")
                .field("id", id)
                .field("name", name)
                .finish(),
            Term::Slot(s) => f.debug_tuple("Slot").field(s).finish(),
            Term::App(n, args) => f.debug_tuple("App").field(n).field(args).finish(),
        })
    }
}

impl Drop for Term {
    fn drop(&mut self) {
        let Term::App(_, args) = self else {
            return;
        };
        let mut below: Vec<Term> = args
            .drain(..)
            .filter(|a| matches!(a, Term::App(..)))
            .collect();
        while let Some(mut t) = below.pop() {
            if let Term::App(_, args) = &mut t {
                below.extend(args.drain(..).filter(|a| matches!(a, Term::App(..))));
            }
        }
    }
}

impl Term {
    /// A compound term, or an atom when there are no arguments.
    pub fn app(name: impl Into<String>, args: Vec<Term>) -> Term {
        let name = name.into();
        if args.is_empty() {
            Term::Atom(name)
        } else {
            Term::App(name, args)
        }
    }

    /// Name and arguments when the term is an atom or a compound term.
    pub fn functor(&self) -> Option<(&str, &[Term])> {
        match self {
            Term::Atom(n) => Some((n, &[])),
            Term::App(n, args) => Some((n, args)),
            _ => None,
        }
    }

    /// Whether the term is `name` applied to `arity` arguments.
    pub fn is(&self, name: &str, arity: usize) -> bool {
        matches!(self.functor(), Some((n, a)) if n == name && a.len() == arity)
    }

    /// Argument `i` of a compound term.
    pub fn arg(&self, i: usize) -> Option<&Term> {
        match self {
            Term::App(_, args) => args.get(i),
            _ => None,
        }
    }

    /// The term with binder `id` replaced by `value` everywhere.
    ///
    /// A variable application whose head becomes a name is the term it
    /// denotes: `$apply(x, a)` with `x` replaced by `p` is `p a` (as the
    /// engine instantiates a `forall` that names a predicate).
    pub fn substitute(&self, id: u32, value: &Term) -> Term {
        crate::util::deep(|| match self {
            Term::Bound { id: b, .. } if *b == id => value.clone(),
            Term::App(n, args) if n == "$apply" && args.len() > 1 => match (&args[0], value) {
                (Term::Bound { id: b, .. }, Term::Atom(name)) if *b == id => Term::App(
                    name.clone(),
                    args[1..].iter().map(|a| a.substitute(id, value)).collect(),
                ),
                _ => Term::App(
                    n.clone(),
                    args.iter().map(|a| a.substitute(id, value)).collect(),
                ),
            },
            Term::App(n, args) => Term::App(
                n.clone(),
                args.iter().map(|a| a.substitute(id, value)).collect(),
            ),
            other => other.clone(),
        })
    }

    /// Whether `needle` occurs in the term (an atom also as the name of a
    /// compound term).
    pub fn contains(&self, needle: &Term) -> bool {
        crate::util::deep(|| {
            if self == needle {
                return true;
            }
            match self {
                Term::App(n, args) => {
                    matches!(needle, Term::Atom(a) if a == n)
                        || args.iter().any(|a| a.contains(needle))
                }
                _ => false,
            }
        })
    }
}

/// Binary operators printed infix by [`Term`]'s `Display`.
const INFIX: &[&str] = &[
    ":-", "<=", "-->", ";", "&", ",", "=>", "-o", "--o", "=", "=:=", "=\\=", "=<", ">=", "<", ">",
    "is", "+", "-", "*", "/", "::",
];

impl fmt::Display for Term {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_term(f, self, false, &mut Vec::new())
    }
}

/// The name of a binder: its name and, for an occurrence, its identity.
fn bound_parts(t: &Term) -> Option<(u32, &str)> {
    match t {
        Term::Bound { id, name } => Some((*id, name)),
        _ => None,
    }
}

/// The name binder `id`, written `written`, prints with when its body is
/// `body` and `scope` holds the binders around it (id and printed name,
/// innermost last): the name written, unless something free in the body
/// prints alike; then the first of `x2`, `x3`, ... that nothing does (as
/// [`crate::pretty::Printer`] chooses).
fn bound_name(id: u32, written: &str, body: &Term, scope: &[(u32, String)]) -> String {
    fn free(
        t: &Term,
        id: u32,
        scope: &[(u32, String)],
        inner: &mut Vec<u32>,
        out: &mut Vec<String>,
    ) {
        crate::util::deep(|| match t {
            Term::Var(v) => out.push(format!("_G{v}")),
            Term::Atom(n) => out.push(n.clone()),
            Term::Const { id, name } => out.push(format!("{name}_{id}")),
            Term::Bound { id: b, name } if *b != id && !inner.contains(b) => {
                match scope.iter().rev().find(|(s, _)| s == b) {
                    Some((_, text)) => out.push(text.clone()),
                    None => out.push(name.clone()),
                }
            }
            Term::Slot(s) => out.push(format!("_S{s}")),
            Term::App(n, args) => {
                if let (true, [x, body]) = (n == "forall" || n == "exists", &args[..]) {
                    if let Some((b, _)) = bound_parts(x) {
                        inner.push(b);
                        free(body, id, scope, inner, out);
                        return;
                    }
                }
                out.push(n.clone());
                for a in args {
                    free(a, id, scope, inner, out);
                }
            }
            Term::Bound { .. } | Term::Int(_) | Term::Str(_) => {}
        })
    }
    let mut texts = Vec::new();
    free(body, id, scope, &mut Vec::new(), &mut texts);
    crate::pretty::numbered_apart(written, |n| texts.iter().any(|t| t == n))
}

/// Write `t`; `nested` asks for parentheses around compound terms; `scope`
/// holds the binders around `t` with the names they print with.
fn write_term(
    f: &mut fmt::Formatter<'_>,
    t: &Term,
    nested: bool,
    scope: &mut Vec<(u32, String)>,
) -> fmt::Result {
    crate::util::deep(|| match t {
        Term::Var(v) => write!(f, "_G{v}"),
        Term::Atom(n) => write!(f, "{}", crate::pretty::quote_name(n)),
        Term::Int(i) if *i < 0 && nested => write!(f, "({i})"),
        Term::Int(i) => write!(f, "{i}"),
        Term::Str(s) => write!(f, "{s:?}"),
        Term::Const { id, name } => {
            write!(f, "{}", crate::pretty::quote_name(&format!("{name}_{id}")))
        }
        Term::Bound { id, name } => {
            let text = match scope.iter().rev().find(|(b, _)| b == id) {
                Some((_, text)) => text,
                None => name,
            };
            write!(f, "{}", crate::pretty::quote_bound(text))
        }
        Term::Slot(s) => write!(f, "_S{s}"),
        Term::App(n, args) => {
            if nested {
                write!(f, "(")?;
            }
            let binder = match (n == "forall" || n == "exists", &args[..]) {
                (true, [x, body]) => bound_parts(x).map(|(id, written)| (id, written, body)),
                _ => None,
            };
            if n == "{}" && args.len() == 1 {
                write!(f, "{{")?;
                write_term(f, &args[0], false, scope)?;
                write!(f, "}}")?;
            } else if let Some((id, written, body)) = binder {
                let name = bound_name(id, written, body, scope);
                write!(f, "{n} {} \\ ", crate::pretty::quote_bound(&name))?;
                scope.push((id, name));
                let done = write_term(f, body, true, scope);
                scope.pop();
                done?;
            } else if (n == "forall" || n == "exists") && args.len() == 2 {
                write!(f, "{n} ")?;
                write_term(f, &args[0], true, scope)?;
                write!(f, " \\ ")?;
                write_term(f, &args[1], true, scope)?;
            } else if n == "->" && args.len() == 3 {
                write_term(f, &args[0], true, scope)?;
                write!(f, " -> ")?;
                write_term(f, &args[1], true, scope)?;
                write!(f, " | ")?;
                write_term(f, &args[2], true, scope)?;
            } else if args.len() == 2 && INFIX.contains(&n.as_str()) {
                write_term(f, &args[0], true, scope)?;
                if n == "," {
                    write!(f, ", ")?;
                } else {
                    write!(f, " {n} ")?;
                }
                write_term(f, &args[1], true, scope)?;
            } else {
                write!(f, "{}", crate::pretty::quote_name(n))?;
                for a in args {
                    write!(f, " ")?;
                    write_term(f, a, true, scope)?;
                }
            }
            if nested {
                write!(f, ")")?;
            }
            Ok(())
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn a(n: &str) -> Term {
        Term::Atom(n.into())
    }

    #[test]
    fn display_parenthesises_compound_arguments() {
        let t = Term::app(
            "-o",
            vec![
                a("a"),
                Term::app(",", vec![a("a"), Term::app("s", vec![a("z")])]),
            ],
        );
        assert_eq!(t.to_string(), "a -o (a, (s z))");
    }

    #[test]
    fn display_renames_a_bound_name_that_would_capture_a_free_one() {
        let bound = |id: u32, name: &str| Term::Bound {
            id,
            name: name.into(),
        };
        let t = Term::app(
            "forall",
            vec![bound(1, "y"), Term::app("f", vec![bound(1, "y"), a("y")])],
        );
        assert_eq!(t.to_string(), "forall y2 \\ (f y2 y)");
        // An inner binder of the same name shadows the outer one where the
        // outer one is not used, and is renamed where it is.
        let t = Term::app(
            "forall",
            vec![
                bound(1, "x"),
                Term::app(
                    "forall",
                    vec![bound(2, "x"), Term::app("p", vec![bound(2, "x")])],
                ),
            ],
        );
        assert_eq!(t.to_string(), "forall x \\ (forall x \\ (p x))");
        let t = Term::app(
            "forall",
            vec![
                bound(1, "x"),
                Term::app(
                    "forall",
                    vec![
                        bound(2, "x"),
                        Term::app("p", vec![bound(1, "x"), bound(2, "x")]),
                    ],
                ),
            ],
        );
        assert_eq!(t.to_string(), "forall x \\ (forall x2 \\ (p x x2))");
    }

    #[test]
    fn display_quotes_bound_names_and_constants_as_names_are_quoted() {
        let bound = |name: &str| Term::Bound {
            id: 1,
            name: name.into(),
        };
        let t = Term::app(
            "exists",
            vec![bound("my pred"), Term::app("p", vec![bound("my pred")])],
        );
        assert_eq!(t.to_string(), "exists 'my pred' \\ (p 'my pred')");
        let t = Term::app(
            "exists",
            vec![bound("Abc"), Term::app("p", vec![bound("Abc")])],
        );
        assert_eq!(t.to_string(), "exists Abc \\ (p Abc)");
        let c = Term::Const {
            id: 0,
            name: "Abc".into(),
        };
        assert_eq!(Term::app("p", vec![c]).to_string(), "p 'Abc_0'");
    }

    #[test]
    fn substitute_replaces_only_the_binder() {
        let x = Term::Bound {
            id: 3,
            name: "x".into(),
        };
        let y = Term::Bound {
            id: 4,
            name: "y".into(),
        };
        let t = Term::app("p", vec![x, y.clone()]);
        let s = t.substitute(3, &Term::Int(1));
        assert_eq!(s, Term::app("p", vec![Term::Int(1), y]));
    }
}
