//! Term cells and the heap, the store of every term built during search.
//!
//! A term is a [`Cell`].  Compound terms live on the [`Heap`] as a
//! `Functor(name, n)` cell followed by its `n` argument cells; a `Struct(a)`
//! cell points at such a functor cell.  A variable is a `Ref` cell; it is
//! unbound when it points at itself.
//!
//! Invariants:
//! - The heap is a stack: cells are only appended during forward search and
//!   only removed by truncating back to a choice point's mark, after the trail
//!   has reset every binding made to older cells.  A heap address therefore
//!   doubles as a creation time: a variable at a lower address is older.
//!   (One exception, which keeps that property: the engine may reserve a
//!   block of cells for a clause body's conjunct and write the conjunct's
//!   copy there later, once; the block holds no variable of its own, only
//!   references to variables made with the reservation.)
//! - Binders (`forall x \ F`, `exists x \ F`) are the structures
//!   `forall(Bound(id), body)` / `exists(Bound(id), body)` in which the bound name occurs
//!   as `Bound(id)`; ids are unique per binder occurrence in the source, so
//!   instantiating a binder is a substitution of one id with no index shifting.
//! - An `Eigen(e)` cell is a fresh constant made by `forall` during search; a
//!   variable older than the constant may not be bound to a term containing it
//!   (the eigenvariable condition).  Its birth address is kept in [`Heap::eigens`].
//!   A `forall` whose body uses its name as a predicate makes an atom
//!   instead, a symbol with the same birth (the context indexes clauses by
//!   symbol); its entry in `eigens` says which, and while the entry lives
//!   no other constant is that symbol.
//! - [`Heap::digests`]`[a]`, when set (nonzero `pow`), is the [`Digest`] of
//!   the ground compound whose functor cell is at `a`.  Only the compounds
//!   of ground facts shared at load time get one; a ground compound's cells
//!   never change, and the table is truncated with the heap, so an entry
//!   never outlives its term.

use super::symbols::{StrId, SymId};

/// A heap address (an index into the heap).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Addr(pub u32);

impl Addr {
    /// The address as an index.
    #[inline]
    pub fn ix(self) -> usize {
        self.0 as usize
    }
}

/// One cell of a term.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Cell {
    /// A variable; on the heap, unbound iff it points at itself.  In a clause
    /// template, `Ref(i)` is the template's variable slot `i`.
    Ref(Addr),
    /// A constant.
    Atom(SymId),
    /// An integer.
    Int(i64),
    /// A string literal.
    Str(StrId),
    /// A compound term: points at its `Functor` cell.
    Struct(Addr),
    /// The header of a compound term: name and number of arguments.
    Functor(SymId, u32),
    /// A fresh constant introduced by `forall` during search.
    Eigen(u32),
    /// The variable bound by the binder with this id.
    Bound(u32),
}

/// What an eigenvariable (fresh constant) records.
#[derive(Copy, Clone, Debug)]
pub struct EigenInfo {
    /// The name written in the binder, for printing.
    pub name: SymId,
    /// The heap length when it was made: variables below it may not capture it.
    pub birth: Addr,
    /// The symbol that stands for the constant instead of an `Eigen` cell,
    /// when the `forall` body uses the name as a predicate (see
    /// [`Heap::new_named_eigen`]).
    pub sym: Option<SymId>,
    /// Once the proof of the `forall` body has ended with newer choice
    /// points left, the number of choice points before the `forall`: when
    /// a commit leaves no more than that, nothing can come back into the
    /// body and the constant may go ([`Heap::drop_ended_eigens`]).
    /// `u32::MAX` until then, and for constants that must stay.
    pub ended: u32,
}

/// The heap of term cells.
#[derive(Clone, Debug, Default)]
pub struct Heap {
    /// The cells, a stack (see the module invariants).
    pub cells: Vec<Cell>,
    /// The eigenvariables made so far (truncated with the heap on backtracking).
    pub eigens: Vec<EigenInfo>,
    /// For symbols made fresh by a module's `LOCAL` declaration, or by a
    /// `forall` that names a predicate while its constant lives: the heap
    /// length when they were made (variables below it may not capture them);
    /// 0 for every other symbol.  Indexed by symbol id.
    pub sym_birth: Vec<u32>,
    /// The largest entry of `sym_birth` ever set for a `LOCAL` symbol (a
    /// `forall` symbol's birth is its eigenvariable's).
    pub max_sym_birth: u32,
    /// The symbols of `forall` constants that no longer live, by the name
    /// written in their binder: the next such `forall` takes one again
    /// rather than making a symbol (symbols are never freed).
    pub free_syms: std::collections::HashMap<SymId, Vec<SymId>, FastHash>,
    /// Variables whose age was lowered, with the age (see
    /// [`Heap::age`]); every change trailed.
    pub lowered: std::collections::HashMap<Addr, u32, FastHash>,
    /// Digests of shared ground compounds, by address (see the module
    /// invariants); shorter than the heap, unset entries are zero.
    pub digests: Vec<Digest>,
    /// Compounds an occurs check found closed (forgotten when the heap is
    /// cut back; see [`super::closed`]).
    pub closed: super::closed::KnownClosed,
    /// The settled prefix: no cell below it reaches a variable above it
    /// (see [`super::settled`]).
    pub settled: super::settled::Settled,
}

impl Heap {
    /// An empty heap.
    pub fn new() -> Self {
        Heap::default()
    }

    /// The number of cells.
    #[inline]
    pub fn len(&self) -> usize {
        self.cells.len()
    }

    /// Whether the heap is empty.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.cells.is_empty()
    }

    /// The cell at `a`.
    #[inline]
    pub fn get(&self, a: Addr) -> Cell {
        self.cells[a.ix()]
    }

    /// Overwrite the cell at `a` (bindings go through the engine's trail).
    #[inline]
    pub fn set(&mut self, a: Addr, c: Cell) {
        self.cells[a.ix()] = c;
    }

    /// The address the next pushed cell will get.
    #[inline]
    pub fn top(&self) -> Addr {
        Addr(self.cells.len() as u32)
    }

    /// A fresh unbound variable.
    #[inline]
    pub fn new_var(&mut self) -> Cell {
        let a = self.top();
        self.cells.push(Cell::Ref(a));
        Cell::Ref(a)
    }

    /// A new compound term `name(args...)`.
    pub fn new_struct(&mut self, name: SymId, args: &[Cell]) -> Cell {
        if args.is_empty() {
            return Cell::Atom(name);
        }
        let a = self.top();
        self.cells.push(Cell::Functor(name, args.len() as u32));
        self.cells.extend_from_slice(args);
        Cell::Struct(a)
    }

    /// A fresh eigenvariable named `name`.
    pub fn new_eigen(&mut self, name: SymId) -> Cell {
        let id = self.eigens.len() as u32;
        self.eigens.push(EigenInfo {
            name,
            birth: self.top(),
            sym: None,
            ended: u32::MAX,
        });
        Cell::Eigen(id)
    }

    /// A fresh constant named `name` that is the symbol `sym` (taken from
    /// [`Heap::reuse_sym`] or made fresh): the atom `sym`, scoped like an
    /// eigenvariable, so that it can name a predicate.  It lives as long as
    /// the eigenvariable entry made for it; when that entry goes, the
    /// symbol goes back to `free_syms`.
    pub fn new_named_eigen(&mut self, name: SymId, sym: SymId) -> Cell {
        let birth = self.top();
        self.eigens.push(EigenInfo {
            name,
            birth,
            sym: Some(sym),
            ended: u32::MAX,
        });
        let i = sym.0 as usize;
        if self.sym_birth.len() <= i {
            self.sym_birth.resize(i + 1, 0);
        }
        self.sym_birth[i] = birth.0;
        Cell::Atom(sym)
    }

    /// A symbol of a `forall` constant named `name` that no longer lives.
    pub fn reuse_sym(&mut self, name: SymId) -> Option<SymId> {
        self.free_syms.get_mut(&name)?.pop()
    }

    /// Forget the eigenvariables from index `n` on (their scope ended, or
    /// the search backtracked past them); their symbols become free.
    #[inline]
    pub fn drop_eigens(&mut self, n: usize) {
        if self.eigens.len() > n {
            self.free_eigen_syms(n);
        }
    }

    #[inline(never)]
    fn free_eigen_syms(&mut self, n: usize) {
        // Newest first, so that the oldest is taken again first (and a
        // query run again names its constants as the first run did).
        for e in self.eigens.drain(n..).rev() {
            if let Some(s) = e.sym {
                self.sym_birth[s.0 as usize] = 0;
                self.free_syms.entry(e.name).or_default().push(s);
            }
        }
    }

    /// Record that the body of the `forall` that made eigenvariable `i`
    /// has been proved, with choice points newer than the `choices` made
    /// before it left (see [`EigenInfo::ended`]).  Backtracking into the
    /// body undoes it ([`Heap::reopen_eigen`]), so the engine trails it
    /// (`Store::end_eigen`).
    pub fn end_eigen(&mut self, i: usize, choices: u32) {
        if let Some(e) = self.eigens.get_mut(i) {
            e.ended = choices;
        }
    }

    /// The search came back into the body of the `forall` that made
    /// eigenvariable `i`: the body has not ended, and no commit may forget
    /// the constant while it runs.
    pub fn reopen_eigen(&mut self, i: usize) {
        if let Some(e) = self.eigens.get_mut(i) {
            e.ended = u32::MAX;
        }
    }

    /// After a commit left `choices` choice points: forget the newest
    /// eigenvariables whose bodies were proved with none but those left
    /// before them (a loop of `once (forall p \ ...)` thus keeps none).
    #[inline]
    pub fn drop_ended_eigens(&mut self, choices: u32) {
        if let Some(e) = self.eigens.last() {
            if e.ended != u32::MAX && e.ended >= choices {
                self.drop_ended_from(choices);
            }
        }
    }

    #[inline(never)]
    fn drop_ended_from(&mut self, choices: u32) {
        let mut n = self.eigens.len();
        while n > 0 && self.eigens[n - 1].ended != u32::MAX && self.eigens[n - 1].ended >= choices {
            n -= 1;
        }
        self.drop_eigens(n);
    }

    /// Whether `s` is the symbol of an eigenvariable from index `n` on.
    pub fn is_eigen_sym_from(&self, s: SymId, n: usize) -> bool {
        self.eigens
            .get(n..)
            .is_some_and(|es| es.iter().any(|e| e.sym == Some(s)))
    }

    /// Follow bound variables to the cell they stand for.
    #[inline]
    pub fn deref(&self, mut c: Cell) -> Cell {
        while let Cell::Ref(a) = c {
            let next = self.cells[a.ix()];
            if let Cell::Ref(b) = next {
                if b == a {
                    return c;
                }
            }
            c = next;
        }
        c
    }

    /// Name, arity and address of the first argument of a dereferenced cell,
    /// treating a constant as a functor of arity 0.
    #[inline]
    pub fn functor(&self, c: Cell) -> Option<(SymId, u32, Addr)> {
        match c {
            Cell::Atom(s) => Some((s, 0, Addr(0))),
            Cell::Struct(a) => match self.cells[a.ix()] {
                Cell::Functor(f, n) => Some((f, n, Addr(a.0 + 1))),
                _ => None,
            },
            _ => None,
        }
    }

    /// The name and arguments of the term a variable application denotes:
    /// for `$apply(F, a1, .., an)` (`c` dereferenced or not) whose head is
    /// bound to a name `f`, `f` and `a1 .. an`; to a compound `f b1 .. bk`,
    /// `f` and `b1 .. bk a1 .. an`; to another application, what that one
    /// denotes followed by `a1 .. an`.  `None` when `c` is no application
    /// or its head is unbound (or not a name or compound).
    pub fn apply_parts(&self, c: Cell) -> Option<(SymId, Vec<Cell>)> {
        let (head, args) = self.apply_chain(c)?;
        match head {
            Cell::Atom(s) => Some((s, args)),
            Cell::Struct(h) => match self.get(h) {
                Cell::Functor(s, k) => {
                    let mut all: Vec<Cell> = (0..k).map(|i| self.arg(h, i)).collect();
                    all.extend(args);
                    Some((s, all))
                }
                _ => None,
            },
            _ => None,
        }
    }

    /// The parts of an *open* variable application: for `$apply(F, a1, ..,
    /// an)` whose head is unbound (directly, or as the head of a nested
    /// application `$apply($apply(F, b1, .., bk), a1, .., an)`), the head
    /// variable `F` and the arguments (`b1 .. bk a1 .. an`).  `None` for
    /// any other term (an application whose head is bound denotes a term of
    /// its own: see [`Heap::apply_parts`]).
    pub fn open_apply(&self, c: Cell) -> Option<(Cell, Vec<Cell>)> {
        self.apply_chain(c)
            .filter(|(head, _)| matches!(head, Cell::Ref(_)))
    }

    /// A variable application with the applications nested in its head
    /// position unfolded: for `$apply(H, a1, .., an)`, the first head (all
    /// dereferenced) that is not itself an application, and the arguments
    /// of every level, innermost first.  `None` when `c` is no application.
    fn apply_chain(&self, c: Cell) -> Option<(Cell, Vec<Cell>)> {
        let Cell::Struct(a) = self.deref(c) else {
            return None;
        };
        let Cell::Functor(f, n) = self.get(a) else {
            return None;
        };
        if f != super::sym::APPLY || n == 0 {
            return None;
        }
        let head = self.deref(self.arg(a, 0));
        let (head, mut args) = self.apply_chain(head).unwrap_or_else(|| (head, Vec::new()));
        args.extend((1..n).map(|i| self.arg(a, i)));
        Some((head, args))
    }

    /// Argument `i` (0-based) of the compound term at `a` (its functor cell).
    #[inline]
    pub fn arg(&self, a: Addr, i: u32) -> Cell {
        self.cells[a.ix() + 1 + i as usize]
    }

    /// The birth of a symbol (0 unless it is a fresh `LOCAL` name).
    #[inline]
    pub fn sym_birth(&self, s: SymId) -> u32 {
        self.sym_birth.get(s.0 as usize).copied().unwrap_or(0)
    }

    /// Record that fresh symbol `s` was made now.
    pub fn set_sym_birth(&mut self, s: SymId) {
        let i = s.0 as usize;
        if self.sym_birth.len() <= i {
            self.sym_birth.resize(i + 1, 0);
        }
        self.sym_birth[i] = self.cells.len() as u32;
        self.max_sym_birth = self.max_sym_birth.max(self.cells.len() as u32);
    }

    /// Whether symbol `s` is a name with a scope made after heap time `t`:
    /// a `LOCAL` name made then, or the symbol of a `forall` constant that
    /// lives (one that no longer lives is in no live term).
    #[inline]
    pub fn sym_born_after(&self, s: SymId, t: u32) -> bool {
        (self.max_sym_birth > t || !self.eigens.is_empty()) && self.sym_birth(s) > t
    }

    /// The birth of the newest name with a scope (eigenvariable or fresh
    /// `LOCAL` symbol), 0 if none: a variable at or above this address may
    /// be bound to any term without capturing a name made after it.
    /// (Eigenvariables are made in heap order, so the newest has the largest
    /// birth; `max_sym_birth` only grows, which errs on the side of checking.)
    ///
    /// While some variable's age is lowered, no address is known to be
    /// safe, and this is `u32::MAX`.
    #[inline]
    pub fn scoped_names_top(&self) -> u32 {
        if !self.lowered.is_empty() {
            return u32::MAX;
        }
        self.newest_scoped_name()
    }

    /// The birth of the newest name with a scope, 0 if none.
    #[inline]
    pub fn newest_scoped_name(&self) -> u32 {
        let eigen = self.eigens.last().map_or(0, |e| e.birth.0);
        self.max_sym_birth.max(eigen)
    }

    /// The age of the variable at `v` for the scope of names: its address,
    /// unless binding an older variable to a term containing it lowered it
    /// (the older variable's term must not come to hold a name made after
    /// that variable, so neither may this one).
    #[inline]
    pub fn age(&self, v: Addr) -> u32 {
        if self.lowered.is_empty() {
            return v.0;
        }
        self.lowered.get(&v).map_or(v.0, |&a| a.min(v.0))
    }

    /// Whether a variable at `v` may be bound to any term without capturing
    /// a name made after it (`v` is at or above [`Heap::scoped_names_top`]).
    #[inline]
    pub fn no_scoped_names_after(&self, v: Addr) -> bool {
        v.0 >= self.scoped_names_top()
    }

    /// Whether the term contains no unbound variable.
    pub fn is_ground(&self, c: Cell) -> bool {
        let mut stack = vec![c];
        while let Some(c) = stack.pop() {
            match self.deref(c) {
                Cell::Ref(_) => return false,
                Cell::Struct(a) => {
                    if let Cell::Functor(_, n) = self.cells[a.ix()] {
                        for i in 0..n {
                            stack.push(self.cells[a.ix() + 1 + i as usize]);
                        }
                    }
                }
                _ => {}
            }
        }
        true
    }

    /// Truncate to `len` cells and `eigens` eigenvariables (backtracking).
    pub fn truncate(&mut self, len: usize, eigens: usize) {
        self.closed.forget();
        self.settled.cut(len as u32);
        self.cells.truncate(len);
        self.drop_eigens(eigens);
        if self.digests.len() > len {
            self.digests.truncate(len);
        }
    }

    /// The digest of the compound at `a`, if it has one.
    #[inline]
    pub fn digest(&self, a: Addr) -> Option<Digest> {
        Digest::at(&self.digests, a)
    }

    /// Record the digest of the ground compound at `a`.
    pub fn set_digest(&mut self, a: Addr, d: Digest) {
        if self.digests.len() <= a.ix() {
            self.digests.resize(a.ix() + 1, Digest::default());
        }
        self.digests[a.ix()] = d;
    }
}

/// A hash of a sequence of tagged words that is linear in the sequence
/// (Horner's rule, `state = (state + word) * P`): hashing `A` then `B` from
/// a state `s` gives `s * P^|B| + H(B)`, where `H(B)` is `B`'s hash from 0.
/// So a term whose [`Digest`] (`H` and `P^len` of its cells) is known joins
/// a running hash in one step, with the same result as visiting its cells.
#[derive(Clone, Copy, Debug, Default)]
pub struct SeqHash(u64);

/// A term's cells summarised for [`SeqHash`]: their hash from 0 and
/// `P^len`.  `pow` is odd, so never 0 (0 marks "no digest").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Digest {
    /// `H` of the cells, from state 0.
    pub hash: u64,
    /// `P` to the number of cells.
    pub pow: u64,
}

impl Digest {
    /// The digest of one cell, a tagged word (as [`SeqHash::add`] takes it).
    #[inline]
    pub fn of_word(tag: u64, word: u64) -> Digest {
        let mut h = SeqHash::new();
        h.add(tag, word);
        Digest {
            hash: h.state(),
            pow: SeqHash::P,
        }
    }

    /// The hash of the term the digest summarises (what
    /// [`crate::logic::keys::term_hash`] gives for it).
    #[inline]
    pub fn finish(self) -> u64 {
        avalanche(self.hash)
    }

    /// The digest recorded for address `a` in a table like
    /// [`Heap::digests`], if any.
    #[inline]
    pub fn at(digests: &[Digest], a: Addr) -> Option<Digest> {
        digests.get(a.ix()).copied().filter(|d| d.pow != 0)
    }
}

impl SeqHash {
    /// The multiplier (odd).
    pub const P: u64 = 0x9e37_79b9_7f4a_7c15;
    /// State 0.
    #[inline]
    pub fn new() -> Self {
        SeqHash(0)
    }
    /// Add a tagged word (the tag folded into its top bits, as [`Hasher64::add`]).
    #[inline]
    pub fn add(&mut self, tag: u64, word: u64) {
        self.0 = self.0.wrapping_add(tagged(tag, word)).wrapping_mul(Self::P);
    }
    /// Add the cells a digest summarises.
    #[inline]
    pub fn add_digest(&mut self, d: Digest) {
        self.0 = self.0.wrapping_mul(d.pow).wrapping_add(d.hash);
    }
    /// The state, as the `hash` of a digest.
    #[inline]
    pub fn state(self) -> u64 {
        self.0
    }
    /// The hash that has reached `state` (as [`SeqHash::state`] gave it).
    #[inline]
    pub fn from_state(state: u64) -> Self {
        SeqHash(state)
    }
    /// The final value, mixed so that every bit depends on every word.
    #[inline]
    pub fn finish(self) -> u64 {
        avalanche(self.0)
    }
}

/// A small, fast, deterministic hash (FxHash-style mixing), used for index keys.
#[derive(Clone, Copy, Debug)]
pub struct Hasher64(u64);

impl Default for Hasher64 {
    fn default() -> Self {
        Self::new()
    }
}

impl Hasher64 {
    const K: u64 = 0x517c_c1b7_2722_0a95;
    /// A fresh hash state.
    #[inline]
    pub fn new() -> Self {
        Hasher64(0x2545_f491_4f6c_dd1d)
    }
    /// Mix in a tagged word (the tag, a small number, is folded into the
    /// word's top bits: one multiply per word).
    #[inline]
    pub fn add(&mut self, tag: u64, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ tagged(tag, word)).wrapping_mul(Self::K);
    }
    /// The final value.
    #[inline]
    pub fn finish(self) -> u64 {
        avalanche(self.0)
    }
}

/// A word with a small tag folded into its top bits.
#[inline]
fn tagged(tag: u64, word: u64) -> u64 {
    word ^ tag.rotate_right(6)
}

/// The final mix of [`Hasher64`] and [`SeqHash`]: every bit of the result
/// depends on every bit of `x`.
#[inline]
fn avalanche(mut x: u64) -> u64 {
    x ^= x >> 33;
    x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
    x ^= x >> 33;
    x
}

/// A `BuildHasher` for `HashMap`s keyed by small integers and hashes.
#[derive(Clone, Copy, Debug, Default)]
pub struct FastHash;

/// The hasher made by [`FastHash`].
#[derive(Clone, Copy, Debug, Default)]
pub struct FastHasher(u64);

impl std::hash::Hasher for FastHasher {
    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        // Eight bytes per step (slices of integers arrive here as bytes).
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.write_u64(u64::from_le_bytes(c.try_into().expect("8 bytes")));
        }
        for &b in chunks.remainder() {
            self.write_u64(b as u64);
        }
    }
    #[inline]
    fn write_u64(&mut self, i: u64) {
        self.0 = (self.0.rotate_left(5) ^ i).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
    #[inline]
    fn write_u32(&mut self, i: u32) {
        self.write_u64(i as u64);
    }
    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.write_u64(i as u64);
    }
    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.write_u64(i as u64);
    }
}

impl std::hash::BuildHasher for FastHash {
    type Hasher = FastHasher;
    #[inline]
    fn build_hasher(&self) -> FastHasher {
        FastHasher(0)
    }
}
