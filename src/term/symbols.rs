//! The symbol table: interned names (`SymId`) and interned string literals (`StrId`).
//!
//! Invariants:
//! - The connectives and built-in names listed in [`sym`] are interned
//!   first, in that order, so their ids are compile-time constants.
//!   Interning is append-only: an id, once handed out, names the same
//!   symbol for the life of the table.
//! - A fresh symbol ([`Symbols::fresh`], a module's `LOCAL` name) has a
//!   text no other symbol has, so printed terms never show two symbols
//!   alike: it is chosen unlike every name interned so far, and when a
//!   name like it is interned later, the fresh symbol's text changes (a
//!   `_` is added).  Interned names keep their text for good.

use std::collections::HashMap;

/// An interned name (constant, functor or operator symbol).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SymId(pub u32);

impl SymId {
    /// Whether this names a binder term, `forall x \\ F` or `exists x \\ F`
    /// (the functor `f/2` whose first argument is the bound name).
    #[inline]
    pub fn is_binder(self) -> bool {
        self == sym::FORALL || self == sym::EXISTS
    }

    /// Whether this is a connective (`,` `;` `-o` `{}` `forall` ...) or an
    /// infix operator (`=` `is` `+` `::` ...) of the grammar: a functor
    /// written as an operator, never as a name.
    pub fn is_operator(self) -> bool {
        self.is_term_operator()
            || matches!(
                self,
                sym::COMMA
                    | sym::WITH
                    | sym::SEMI
                    | sym::LOLLI
                    | sym::IMP
                    | sym::NECK
                    | sym::RIMP
                    | sym::DCG
                    | sym::LOAD
                    | sym::BANG
                    | sym::GUARD
                    | sym::FORALL
                    | sym::EXISTS
            )
    }

    /// Whether this is an infix operator of terms (`=` `is` `+` `::` ...),
    /// all of which bind tighter than the connectives (LANGUAGE.md §2).
    pub fn is_term_operator(self) -> bool {
        matches!(
            self,
            sym::CONS
                | sym::EQ
                | sym::ARITH_EQ
                | sym::ARITH_NE
                | sym::LE
                | sym::GE
                | sym::LT
                | sym::GT
                | sym::IS
                | sym::PLUS
                | sym::MINUS
                | sym::TIMES
                | sym::DIV
        )
    }
}

/// An interned string literal.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StrId(pub u32);

macro_rules! predefined {
    ($($id:ident = $text:expr),* $(,)?) => {
        /// The predefined symbols, with fixed ids.
        pub mod sym {
            use super::SymId;
            predefined!(@consts 0u32, $($id,)*);
            /// The texts of the predefined symbols, in id order.
            pub const TEXTS: &[&str] = &[$($text),*];
        }
    };
    (@consts $n:expr, $id:ident, $($rest:ident,)*) => {
        #[allow(missing_docs)]
        pub const $id: SymId = SymId($n);
        predefined!(@consts $n + 1u32, $($rest,)*);
    };
    (@consts $n:expr,) => {};
}

predefined! {
    COMMA = ",",
    WITH = "&",
    SEMI = ";",
    LOLLI = "-o",
    IMP = "=>",
    NECK = ":-",
    RIMP = "<=",
    DCG = "-->",
    LOAD = "--o",
    BANG = "{}",
    GUARD = "->",
    FORALL = "forall",
    EXISTS = "exists",
    TRUE = "true",
    ERASE = "erase",
    FAIL = "fail",
    NIL = "nil",
    CONS = "::",
    EQ = "=",
    ARITH_EQ = "=:=",
    ARITH_NE = "=\\=",
    LE = "=<",
    GE = ">=",
    LT = "<",
    GT = ">",
    IS = "is",
    PLUS = "+",
    MINUS = "-",
    TIMES = "*",
    DIV = "/",
    APPLY = "$apply",
    TOP = "top",
    END_OF_FILE = "end_of_file",
}

/// The table of names and strings.
#[derive(Clone, Debug)]
pub struct Symbols {
    names: Vec<Box<str>>,
    name_ids: HashMap<Box<str>, SymId>,
    strings: Vec<Box<str>>,
    string_ids: HashMap<Box<str>, StrId>,
    fresh_count: u32,
    /// The fresh symbols by their current text.
    fresh_ids: HashMap<Box<str>, SymId>,
    /// Each fresh symbol with the name it was made from, oldest first.
    fresh_made: Vec<(Box<str>, SymId)>,
}

impl Default for Symbols {
    fn default() -> Self {
        Self::new()
    }
}

impl Symbols {
    /// A table holding the predefined symbols.
    pub fn new() -> Self {
        let mut table = Symbols {
            names: Vec::new(),
            name_ids: HashMap::new(),
            strings: Vec::new(),
            string_ids: HashMap::new(),
            fresh_count: 0,
            fresh_ids: HashMap::new(),
            fresh_made: Vec::new(),
        };
        for text in sym::TEXTS {
            table.intern(text);
        }
        table
    }

    /// The id of `text`, interning it if new.
    pub fn intern(&mut self, text: &str) -> SymId {
        if let Some(&id) = self.name_ids.get(text) {
            return id;
        }
        if let Some(fresh) = self.fresh_ids.remove(text) {
            // A fresh symbol printed like this name: it moves aside.
            let mut moved = format!("{text}_");
            while self.is_taken(&moved) {
                moved.push('_');
            }
            self.names[fresh.0 as usize] = moved.as_str().into();
            self.fresh_ids.insert(moved.into(), fresh);
        }
        let id = SymId(self.names.len() as u32);
        self.names.push(text.into());
        self.name_ids.insert(text.into(), id);
        id
    }

    /// Whether some symbol, interned or fresh, prints as `text`.
    pub fn is_taken(&self, text: &str) -> bool {
        self.name_ids.contains_key(text) || self.fresh_ids.contains_key(text)
    }

    /// Whether a fresh symbol ([`Self::fresh`], [`Self::fresh_constant`])
    /// prints as `text`: typed, the text names another symbol.
    pub fn is_fresh_text(&self, text: &str) -> bool {
        self.fresh_ids.contains_key(text)
    }

    /// A new symbol that no text interns to: a module's `LOCAL` name for one
    /// loading of the module.  It prints as `name_N`, with the first `N`
    /// that no other symbol prints as (see the module's invariants).
    pub fn fresh(&mut self, name: &str) -> SymId {
        let id = self.fresh_constant(name);
        self.fresh_made.push((name.into(), id));
        id
    }

    /// A new symbol that no text interns to, printed as [`Self::fresh`]
    /// prints, for a `forall` constant that names a predicate; not one of
    /// [`Self::fresh_of`].
    pub fn fresh_constant(&mut self, name: &str) -> SymId {
        let id = SymId(self.names.len() as u32);
        let text = loop {
            self.fresh_count += 1;
            let text = format!("{name}_{}", self.fresh_count);
            if !self.is_taken(&text) {
                break text;
            }
        };
        self.names.push(text.as_str().into());
        self.fresh_ids.insert(text.into(), id);
        id
    }

    /// The `LOCAL` symbols made from `name` by [`Self::fresh`] (one per
    /// loading of a module declaring it).
    pub fn fresh_of(&self, name: &str) -> Vec<SymId> {
        self.fresh_made
            .iter()
            .filter(|(made_from, _)| &**made_from == name)
            .map(|&(_, id)| id)
            .collect()
    }

    /// The number of symbols, interned and fresh.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// Whether there is no symbol (never, once made by [`Self::new`]).
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// The id of `text` if it was interned.
    pub fn lookup(&self, text: &str) -> Option<SymId> {
        self.name_ids.get(text).copied()
    }

    /// The text of a name.
    pub fn name(&self, id: SymId) -> &str {
        self.names.get(id.0 as usize).map(|b| &**b).unwrap_or("?")
    }

    /// The id of a string literal, interning it if new.
    pub fn intern_str(&mut self, text: &str) -> StrId {
        if let Some(&id) = self.string_ids.get(text) {
            return id;
        }
        let id = StrId(self.strings.len() as u32);
        self.strings.push(text.into());
        self.string_ids.insert(text.into(), id);
        id
    }

    /// The text of a string literal.
    pub fn string(&self, id: StrId) -> &str {
        self.strings.get(id.0 as usize).map(|b| &**b).unwrap_or("")
    }

    /// Every interned name, for completion and diagnostics.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.names.iter().map(|b| &**b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn predefined_ids_are_stable() {
        let mut s = Symbols::new();
        assert_eq!(s.intern("-o"), sym::LOLLI);
        assert_eq!(s.name(sym::GUARD), "->");
        assert_eq!(s.intern("end_of_file"), sym::END_OF_FILE);
        let x = s.intern("peg");
        assert_eq!(s.intern("peg"), x);
        assert_eq!(s.name(x), "peg");
    }

    #[test]
    fn fresh_symbols_never_print_like_another_symbol() {
        let mut s = Symbols::new();
        let taken = s.intern("key_1");
        let a = s.fresh("key");
        assert_eq!(s.name(a), "key_2");
        assert_ne!(s.intern("key_2"), a);
        // The fresh symbol moved aside for the name interned after it.
        assert_eq!(s.name(a), "key_2_");
        assert_eq!(s.name(taken), "key_1");
        s.intern("key_2__");
        assert_eq!(s.intern("key_2_"), SymId(s.names.len() as u32 - 1));
        assert_eq!(s.name(a), "key_2___");
        assert_eq!(s.fresh_of("key"), vec![a]);
        assert_eq!(s.lookup("key_2___"), None);
    }
}
