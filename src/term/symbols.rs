//! The symbol table: interned names (`SymId`) and interned string literals (`StrId`).
//!
//! Invariant: the connectives and built-in names listed in [`sym`] are interned
//! first, in that order, so their ids are compile-time constants.  Interning is
//! append-only: an id, once handed out, names the same text for the life of the
//! table.

use std::collections::HashMap;

/// An interned name (constant, functor or operator symbol).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SymId(pub u32);

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
        let id = SymId(self.names.len() as u32);
        self.names.push(text.into());
        self.name_ids.insert(text.into(), id);
        id
    }

    /// A new symbol that no text interns to: a module's `LOCAL` name for one
    /// loading of the module.  It prints as `name_N`.
    pub fn fresh(&mut self, name: &str) -> SymId {
        let id = SymId(self.names.len() as u32);
        self.fresh_count += 1;
        self.names
            .push(format!("{name}_{}", self.fresh_count).into());
        id
    }

    /// The `LOCAL` symbols made from `name` by [`Self::fresh`] (one per
    /// loading of a module declaring it).
    pub fn fresh_of(&self, name: &str) -> Vec<SymId> {
        (0..self.names.len())
            .filter(|&i| {
                let text = &*self.names[i];
                text.strip_prefix(name)
                    .and_then(|rest| rest.strip_prefix('_'))
                    .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
                    && !self.name_ids.contains_key(text)
            })
            .map(|i| SymId(i as u32))
            .collect()
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
}
