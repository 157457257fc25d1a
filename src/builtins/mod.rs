//! The built-in predicates: one registry from `(name, arity)` to what the
//! engine does, and each built-in's resource behaviour.
//!
//! Resource behaviour (as in Lolli 0.94): every built-in consumes no linear
//! resource.  Those that run a goal (`telling`, `seeing`, `timing`, `load`,
//! `top`) give that goal the current context; the rest behave like `true`
//! (`1`): the resources a goal must consume are still to be consumed after it.
//!
//! The aggregates (`findall`, `count`, `not`) run their goal to exhaustion in
//! the current context: the goal may use any of the linear resources usable
//! at the call (it need not use them all), and whatever it consumes or binds
//! is given back afterwards, so the aggregate itself consumes nothing.
//! `once G` is `G -> true | fail`: it consumes what the first proof of G
//! consumes.  `between` consumes nothing.
//! The implementations live in the engine ([`crate::engine::builtins`]); this
//! table is what the loader and the warnings consult.

/// A built-in predicate.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Builtin {
    /// `write T`: print a term.
    Write,
    /// `write_sans T`: print a term, names and strings without quotes.
    WriteSans,
    /// `write_clause T`: print a term as a clause, with a final `.` and newline.
    WriteClause,
    /// `write_raw T`: print a term in prefix form with every parenthesis.
    WriteRaw,
    /// `nl`: print a newline.
    Nl,
    /// `read T`: read a term (ending with `.`) from the current input.
    Read,
    /// `telling File G`: prove G with output going to File.
    Telling,
    /// `seeing File G`: prove G with input coming from File.
    Seeing,
    /// `timing G T`: prove G; T is the time it took, in milliseconds.
    Timing,
    /// `load M`: `M --o top`.
    Load,
    /// `cd Dir`: change the working directory.
    Cd,
    /// `system Cmd Status`: run a shell command (only with `--allow-system`).
    System,
    /// `top`: a nested top level in the current context.
    Top,
    /// `pop`: leave the current top level.
    Pop,
    /// `popall`: return to the outermost top level.
    PopAll,
    /// `abort`: abandon the query.
    Abort,
    /// `bye` / `exit`: leave the interpreter.
    Bye,
    /// `var T`: T is an unbound variable.
    Var,
    /// `nonvar T`: T is not an unbound variable.
    NonVar,
    /// `explode S L`: string to list of one-character names (either way).
    Explode,
    /// `explode_words S L`: string to list of word names (either way).
    ExplodeWords,
    /// `generalize T G`: G is T with its free variables universally quantified.
    Generalize,
    /// `X is E`: arithmetic evaluation.
    Is,
    /// `A = B`: unification.
    Unify,
    /// `=:=`
    ArithEq,
    /// `=\=`
    ArithNe,
    /// `<`
    Lt,
    /// `>`
    Gt,
    /// `=<`
    Le,
    /// `>=`
    Ge,
    /// `findall Template Goal List`: every answer of Goal, as instances of Template.
    Findall,
    /// `count Goal N`: N is the number of proofs of Goal.
    Count,
    /// `not G`: G has no proof (negation as failure).
    Not,
    /// `once G`: the first proof of G only (`G -> true | fail`).
    Once,
    /// `between Low High X`: X is an integer from Low to High, in order.
    Between,
}

impl Builtin {
    /// The built-in with this name and arity, if any.
    pub fn lookup(name: &str, arity: u32) -> Option<Builtin> {
        use Builtin::*;
        Some(match (name, arity) {
            ("write", 1) => Write,
            ("write_sans", 1) => WriteSans,
            ("write_clause", 1) => WriteClause,
            ("write_raw", 1) => WriteRaw,
            ("nl", 0) => Nl,
            ("read", 1) => Read,
            ("telling", 2) => Telling,
            ("seeing", 2) => Seeing,
            ("timing", 2) => Timing,
            ("load", 1) => Load,
            ("cd", 1) => Cd,
            ("system", 2) => System,
            ("top", 0) => Top,
            ("pop", 0) => Pop,
            ("popall", 0) => PopAll,
            ("abort", 0) => Abort,
            ("bye", 0) | ("exit", 0) => Bye,
            ("var", 1) => Var,
            ("nonvar", 1) => NonVar,
            ("explode", 2) => Explode,
            ("explode_words", 2) => ExplodeWords,
            ("generalize", 2) => Generalize,
            ("is", 2) => Is,
            ("=", 2) => Unify,
            ("=:=", 2) => ArithEq,
            ("=\\=", 2) => ArithNe,
            ("<", 2) => Lt,
            (">", 2) => Gt,
            ("=<", 2) => Le,
            (">=", 2) => Ge,
            ("findall", 3) => Findall,
            ("count", 2) => Count,
            ("not", 1) => Not,
            ("once", 1) => Once,
            ("between", 3) => Between,
            _ => return None,
        })
    }

    /// Whether the name is a built-in at any arity (a clause may not define it).
    pub fn is_reserved(name: &str) -> bool {
        (0..=3).any(|n| Builtin::lookup(name, n).is_some())
    }

    /// Whether the built-in has effects outside the proof (output, input,
    /// files, the clock, the process): such calls make failure memoization unsound.
    pub fn has_side_effects(self) -> bool {
        use Builtin::*;
        matches!(
            self,
            Write
                | WriteSans
                | WriteClause
                | WriteRaw
                | Nl
                | Read
                | Telling
                | Seeing
                | Timing
                | Load
                | Cd
                | System
                | Top
                | Pop
                | PopAll
                | Abort
                | Bye
        )
    }

    /// The positions of the arguments the built-in runs as goals
    /// (`findall T G L` runs `G`): what they call is called.
    pub fn goal_args(self) -> &'static [usize] {
        use Builtin::*;
        match self {
            Findall | Telling | Seeing => &[1],
            Count | Not | Once | Timing => &[0],
            _ => &[],
        }
    }

    /// Every built-in name with its arity, for documentation and completion.
    pub const ALL: &'static [(&'static str, u32)] = &[
        ("write", 1),
        ("write_sans", 1),
        ("write_clause", 1),
        ("write_raw", 1),
        ("nl", 0),
        ("read", 1),
        ("telling", 2),
        ("seeing", 2),
        ("timing", 2),
        ("load", 1),
        ("cd", 1),
        ("system", 2),
        ("top", 0),
        ("pop", 0),
        ("popall", 0),
        ("abort", 0),
        ("bye", 0),
        ("exit", 0),
        ("var", 1),
        ("nonvar", 1),
        ("explode", 2),
        ("explode_words", 2),
        ("generalize", 2),
        ("is", 2),
        ("=", 2),
        ("=:=", 2),
        ("=\\=", 2),
        ("<", 2),
        (">", 2),
        ("=<", 2),
        (">=", 2),
        ("findall", 3),
        ("count", 2),
        ("not", 1),
        ("once", 1),
        ("between", 3),
    ];
}

/// [`is_connective`] by symbol: every connective is a predefined symbol
/// (checked against the names by a test).
#[inline]
pub fn is_connective_sym(f: crate::term::SymId, arity: u32) -> bool {
    use crate::term::sym;
    matches!(
        (f, arity),
        (sym::COMMA, 2)
            | (sym::WITH, 2)
            | (sym::SEMI, 2)
            | (sym::LOLLI, 2)
            | (sym::IMP, 2)
            | (sym::NECK, 2)
            | (sym::RIMP, 2)
            | (sym::LOAD, 2)
            | (sym::BANG, 1)
            | (sym::GUARD, 3)
            | (sym::FORALL, 2)
            | (sym::EXISTS, 2)
            | (sym::APPLY, _)
            | (sym::TRUE, 0)
            | (sym::ERASE, 0)
            | (sym::FAIL, 0)
    )
}

/// The connectives: names that are formulas, not predicates, at these arities.
pub fn is_connective(name: &str, arity: u32) -> bool {
    matches!(
        (name, arity),
        (",", 2)
            | ("&", 2)
            | (";", 2)
            | ("-o", 2)
            | ("=>", 2)
            | (":-", 2)
            | ("<=", 2)
            | ("--o", 2)
            | ("{}", 1)
            | ("->", 3)
            | ("forall", 2)
            | ("exists", 2)
            | ("$apply", _)
            | ("true", 0)
            | ("erase", 0)
            | ("fail", 0)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::term::{sym, SymId, Symbols};

    #[test]
    fn connectives_by_symbol_are_the_connectives_by_name() {
        let mut symbols = Symbols::new();
        // Every predefined symbol, and a name that is not one.
        let other = symbols.intern("jump");
        let ids = (0..sym::TEXTS.len() as u32).map(SymId).chain([other]);
        for f in ids {
            for arity in 0..5 {
                assert_eq!(
                    is_connective_sym(f, arity),
                    is_connective(symbols.name(f), arity),
                    "{} / {arity}",
                    symbols.name(f)
                );
            }
        }
    }
}
