//! Clause templates: program clauses compiled once from the syntax tree.
//!
//! A template is a flat array of cells laid out in preorder: a compound
//! term's functor cell and argument cells come first, then the blocks of its
//! compound arguments, so every compound subterm occupies one contiguous
//! range.  `Ref(i)` cells are the template's variable slots.  Using a clause
//! copies the needed blocks to the heap with fresh variables for unset slots
//! ([`crate::engine`] does that), so a template is never modified after it is
//! built.
//!
//! Slots `0 .. env_len` are the clause's *environment*: the module
//! parameters, bound once when the module is loaded; the other slots are
//! the clause's own variables, universally quantified (fresh at every use).
//! A module's `LOCAL` names compile to symbols made fresh for each loading
//! (so they can name predicates as well as terms).
//! A `forall x \ R` in clause position becomes one more such slot; in goal
//! position it stays a `forall(Bound(id), body)` term whose body refers to
//! `x` as `Bound(id)`; the binder's name is kept in a table indexed by id.

use std::collections::HashMap;

use super::clause::{clause_alts, Alt, Body, ClauseError, EXISTS_IN_CLAUSE};
use super::keys::{head_keys, Keys};
use super::lookahead::{plans_of, AheadPlan, FirstCall};
use crate::source::FileId;
use crate::syntax::ast::{Quant, Span, Term, TermKind};
use crate::term::{sym, Addr, Cell, SymId, Symbols};

/// A compiled clause (or goal) template.
#[derive(Clone, Debug)]
pub struct Template {
    /// The cells (see the module doc for the layout).
    pub cells: Vec<Cell>,
    /// For each functor cell of `cells`, the end (exclusive) of its
    /// compound term's block ([`block_ends`]); 0 for other cells.
    pub ends: Vec<u32>,
    /// The whole clause term.
    pub root: Cell,
    /// Number of variable slots.
    pub nslots: u32,
    /// Number of leading slots bound by the module environment.
    pub env_len: u32,
    /// The source name of each slot (for printing clause instances).
    pub slot_names: Vec<String>,
    /// Whether the slots after the environment's stand for the
    /// clause-level quantifiers of a clause assumed during search
    /// (`forall x \\ p x`, see [`crate::engine::generalize`]).  Such a
    /// clause's free variables are shared with the proof, not renamed, so
    /// printed it gets its `forall`s back: `p X` alone would read as a
    /// clause that shares `X`.
    pub quantified: bool,
    /// The clause alternatives (empty for goal templates).
    pub alts: Vec<Alt>,
    /// The index keys of each alternative's head.
    pub keys: Vec<((SymId, u32), Keys)>,
    /// Whether some alternative's head holds a binder term (`forall x \\
    /// F` or `exists x \\ F` as data): such a head is matched by copying
    /// it and unifying up to bound names, not cell by cell
    /// ([`binders_in_heads`]).
    pub binder_heads: bool,
    /// For each alternative whose body is a conjunction `G1 , ... , Gn`:
    /// its conjuncts, left to right (empty for any other body).
    pub conjuncts: Vec<Vec<Conjunct>>,
    /// For each alternative with conjuncts: whether its conjunction nests
    /// to the left only (`(G1 , G2) , G3`, as `,` is read), so that every
    /// `,` step of its proof comes before `G1`'s ([`left_nested`]).
    pub left_nested: Vec<bool>,
    /// The look-ahead plans of consecutive conjuncts
    /// ([`super::lookahead::plans_of`]), named by [`Conjunct::plan`].
    pub ahead: Box<[AheadPlan]>,
    /// The conjuncts that are takes of a move ([`Conjunct::take`]), by
    /// their goal's cell, in increasing order of it ([`takes_of`]).
    pub takes: Box<[TakeOf]>,
    /// Where the clause was written, if it came from a source text.
    pub origin: Option<(FileId, Span)>,
    /// Each term written in the body of the clause (in goal position, and
    /// their subterms), as a cell of `cells`, with its source span, so
    /// that an error can point at the goal it happened in
    /// ([`Template::goal_span`]).  Empty for a clause without a body and
    /// for templates not compiled from a source.
    pub goal_spans: Box<[(Cell, Span)]>,
}

impl Template {
    /// Whether the first body conjunct of some alternative has a
    /// [`FirstCall`].
    pub fn has_first_call(&self) -> bool {
        self.conjuncts
            .iter()
            .any(|c| c.first().is_some_and(|c| c.first.is_some()))
    }

    /// The span of the one term of the clause's body that `is_it` accepts
    /// (given the term's cell); `None` when there is none or more than one
    /// (then only the clause as a whole can be named).
    pub fn goal_span(&self, mut is_it: impl FnMut(Cell) -> bool) -> Option<Span> {
        let mut found = None;
        for (c, span) in self.goal_spans.iter() {
            if is_it(*c) {
                if found.is_some() {
                    return None;
                }
                found = Some(span.clone());
            }
        }
        found
    }
}

/// One conjunct of a clause body in a template.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Conjunct {
    /// The goal (a template cell).
    pub goal: Cell,
    /// The length of its block of cells when it is a compound term, else 0.
    pub len: u32,
    /// The position in [`Template::ahead`] of the look-ahead plan for the
    /// conjunct before this one and this one, or `u32::MAX` for none.
    pub plan: u32,
    /// For the first conjunct, when it is a call whose candidates do not
    /// depend on the head: its name and index keys
    /// ([`super::lookahead::FirstCall`]).
    pub first: Option<FirstCall>,
    /// For the assumption that ends a move begun by a conjunct `Gk`
    /// ([`super::move_plan`]; the first one of the body, or the first after
    /// an earlier move's assumption): the position in [`Template::ahead`]
    /// of the plan of `Gk , Gk+1` whose move plan names it, and where the
    /// heap copy of `Gk` is relative to this conjunct's block (as
    /// [`AheadPlan::offset`]).  The engine names the facts such a move
    /// assumes by the move and the term of the fact `Gk` took.
    pub assumes: Option<(u32, i64)>,
    /// For a call `Gj` (j = k+1 .. k+m) that the move begun by `Gk` takes
    /// ([`super::move_plan::MovePlan::takes`]): the position in
    /// [`Template::ahead`] of the plan of `Gk , Gk+1` whose move plan
    /// names it, its place among the takes (from 0), and where the heap
    /// copy of `Gk` is relative to this conjunct's block.  The candidate
    /// `Gk` took decides the fact such a take finds, so the engine
    /// remembers it by the move and the term of that candidate.
    pub take: Option<(u32, u32, i64)>,
    /// Whether this conjunct, not the first, begins such a move (`b X Y
    /// peg` in `jump K :- K > 0 , N is K - 1 , b X Y peg , ...`): the
    /// engine then records what its call takes.  (The first conjunct's
    /// move is known when the clause is tried.)
    pub begins: bool,
}

/// A conjunct that is a take of a move ([`Conjunct::take`]), found by its
/// goal's cell.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct TakeOf {
    /// The conjunct's goal: the template cell of its compound term.
    pub goal: u32,
    /// The plan of `Gk , Gk+1` whose move plan names it.
    pub plan: u32,
    /// Its place among the move's takes, from 0.
    pub k: u32,
    /// Where the heap copy of `Gk` is relative to the conjunct's block.
    pub offset: i64,
}

/// [`Template::takes`]: the conjuncts of every alternative whose
/// [`Conjunct::take`] is set, ordered by goal cell.
pub fn takes_of(conjuncts: &[Vec<Conjunct>]) -> Box<[TakeOf]> {
    let mut takes: Vec<TakeOf> = conjuncts
        .iter()
        .flatten()
        .filter_map(|c| match (c.goal, c.take) {
            (Cell::Struct(a), Some((plan, k, offset))) => Some(TakeOf {
                goal: a.0,
                plan,
                k,
                offset,
            }),
            _ => None,
        })
        .collect();
    takes.sort_by_key(|t| t.goal);
    takes.into_boxed_slice()
}

/// The conjuncts of each alternative's body, for [`Template::conjuncts`]:
/// a body that is one goal `G1 , G2` is flattened (in order, at any
/// nesting of `,`); other bodies get none.  `ends` are the cells' block
/// ends ([`block_ends`]).
pub fn conjuncts_of(cells: &[Cell], ends: &[u32], alts: &[Alt]) -> Vec<Vec<Conjunct>> {
    let is_tensor =
        |c: Cell| matches!(c, Cell::Struct(a) if cells[a.ix()] == Cell::Functor(sym::COMMA, 2));
    alts.iter()
        .map(|alt| {
            let mut out = Vec::new();
            if let [Body::Goal(root)] = alt.body[..] {
                if is_tensor(root) {
                    let mut todo = vec![root];
                    while let Some(c) = todo.pop() {
                        match c {
                            Cell::Struct(a) if is_tensor(c) => {
                                todo.push(cells[a.ix() + 2]);
                                todo.push(cells[a.ix() + 1]);
                            }
                            Cell::Struct(a) => out.push(Conjunct {
                                goal: c,
                                len: ends[a.ix()] - a.0,
                                plan: u32::MAX,
                                first: None,
                                assumes: None,
                                take: None,
                                begins: false,
                            }),
                            _ => out.push(Conjunct {
                                goal: c,
                                len: 0,
                                plan: u32::MAX,
                                first: None,
                                assumes: None,
                                take: None,
                                begins: false,
                            }),
                        }
                    }
                }
            }
            out
        })
        .collect()
}

/// For [`Template::left_nested`]: whether each alternative's body is a
/// conjunction that nests to the left only.
pub fn left_nested_of(cells: &[Cell], alts: &[Alt]) -> Vec<bool> {
    alts.iter()
        .map(|a| matches!(a.body[..], [Body::Goal(root)] if left_nested(cells, root)))
        .collect()
}

/// Whether the conjunction `root` nests to the left only: no `,` is the
/// right operand of a `,` (`(G1 , G2) , G3`, not `G1 , (G2 , G3)`).
pub fn left_nested(cells: &[Cell], root: Cell) -> bool {
    let is_tensor =
        |c: Cell| matches!(c, Cell::Struct(a) if cells[a.ix()] == Cell::Functor(sym::COMMA, 2));
    let mut c = root;
    while let Cell::Struct(a) = c {
        if !is_tensor(c) {
            break;
        }
        if is_tensor(cells[a.ix() + 2]) {
            return false;
        }
        c = cells[a.ix() + 1];
    }
    true
}

/// The end (exclusive) of the contiguous block of the compound term at
/// `a`, found by walking (what [`block_ends`] must agree with).
#[cfg(test)]
fn block_end(cells: &[Cell], a: Addr) -> usize {
    let mut a = a.ix();
    loop {
        let n = match cells[a] {
            Cell::Functor(_, n) => n as usize,
            _ => return a + 1,
        };
        let mut last = None;
        for i in 0..n {
            if let Cell::Struct(b) = cells[a + 1 + i] {
                if b.ix() > a {
                    last = Some(b.ix());
                }
            }
        }
        match last {
            Some(b) => a = b,
            None => return a + 1 + n,
        }
    }
}

/// Whether the head of some alternative holds a binder term: a
/// `forall`/`exists` compound whose first argument is a bound name.
pub fn binders_in_heads(cells: &[Cell], ends: &[u32], alts: &[Alt]) -> bool {
    alts.iter().any(|a| match a.head {
        Cell::Struct(h) => cells[h.ix()..ends[h.ix()] as usize]
            .windows(2)
            .any(|w| matches!(w, [Cell::Functor(f, 2), Cell::Bound(_)] if f.is_binder())),
        _ => false,
    })
}

/// The block end of every compound term of `cells`, indexed by the
/// address of its functor cell (0 for other cells): copying a clause's
/// terms needs their length, and walking to the last argument's block for
/// it cost as much as the copy.  One pass from the last cell down: a
/// block ends where the block of its last compound argument ends (laid
/// out after it, so already known), or after its own argument cells.
/// (Walking each term's chain of last arguments instead made loading
/// quadratic in a term's depth: 14 s for a numeral of 100,000 `s`.)
pub fn block_ends(cells: &[Cell]) -> Vec<u32> {
    let mut ends = vec![0u32; cells.len()];
    for a in (0..cells.len()).rev() {
        if let Cell::Functor(_, n) = cells[a] {
            let args = &cells[a + 1..a + 1 + n as usize];
            let last = args.iter().rev().find_map(|c| match c {
                Cell::Struct(b) if b.ix() > a => Some(b.ix()),
                _ => None,
            });
            ends[a] = match last {
                Some(b) => ends[b],
                None => (a + 1 + n as usize) as u32,
            };
        }
    }
    ends
}

impl Template {
    /// The end (exclusive) of the contiguous block of the compound term at `a`.
    #[inline]
    pub fn block_end(&self, a: Addr) -> usize {
        self.ends[a.ix()] as usize
    }
}

/// A name that cannot be compiled: data for a diagnostic.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompileError {
    /// Where.
    pub span: Span,
    /// What is wrong, in words.
    pub message: String,
}

/// Compiles syntax trees into templates.
pub struct Compiler<'a> {
    symbols: &'a mut Symbols,
    /// The name of every binder compiled so far; a binder's id is its index.
    binder_names: &'a mut Vec<SymId>,
    cells: Vec<Cell>,
    /// Named variables of the clause → slot.
    vars: HashMap<String, u32>,
    slot_names: Vec<String>,
    /// Names that stand for environment slots (module `LOCAL` names).
    locals: &'a HashMap<String, SymId>,
    /// Binder scope: innermost last.
    bound: Vec<(String, Cell)>,
    /// Whether [`Compiler::term`] records what it compiles in
    /// `goal_spans` (in a clause's goal operands).
    in_body: bool,
    goal_spans: Vec<(Cell, Span)>,
}

impl<'a> Compiler<'a> {
    /// A compiler for one clause; `params` are the module parameter names
    /// (slots `0..`), `locals` map `LOCAL` names to the fresh symbols of
    /// one loading of the module.
    pub fn new(
        symbols: &'a mut Symbols,
        binder_names: &'a mut Vec<SymId>,
        params: &[String],
        locals: &'a HashMap<String, SymId>,
    ) -> Self {
        let mut vars = HashMap::new();
        let mut slot_names = Vec::new();
        for (i, p) in params.iter().enumerate() {
            vars.insert(p.clone(), i as u32);
            slot_names.push(p.clone());
        }
        Compiler {
            symbols,
            binder_names,
            cells: Vec::new(),
            vars,
            slot_names,
            locals,
            bound: Vec::new(),
            in_body: false,
            goal_spans: Vec::new(),
        }
    }

    /// Compile a program clause (clause-level `forall` becomes a slot).
    pub fn clause(mut self, t: &Term) -> Result<Template, CompileError> {
        let env_len = self.slot_names.len() as u32;
        let root = self.clause_term(t)?;
        let mut alts = Vec::new();
        let cells = std::mem::take(&mut self.cells);
        clause_alts(&cells, &|c| c, root, &mut alts).map_err(|e| CompileError {
            span: t.span.clone(),
            message: match e {
                ClauseError::Unbound => "a variable cannot be a clause or the head of a clause".into(),
                ClauseError::NotAClause(_) => "this is not a clause: a clause is an atom, `H :- G`, `R & R` or `forall x \\ R`".into(),
                ClauseError::HasBinder => "a quantifier in this position is not supported".into(),
                ClauseError::Exists => EXISTS_IN_CLAUSE.into(),
            },
        })?;
        // A program holds one template per clause, most with one
        // alternative: no room to spare.
        alts.shrink_to_fit();
        let mut scratch = Vec::new();
        let keys = alts
            .iter()
            .map(|a| head_keys(&cells, &[], |c| c, a.head, &mut scratch))
            .collect();
        let ends = block_ends(&cells);
        let mut conjuncts = conjuncts_of(&cells, &ends, &alts);
        let ahead = plans_of(&cells, &ends, &alts, &mut conjuncts, env_len);
        let takes = takes_of(&conjuncts);
        let left_nested = left_nested_of(&cells, &alts);
        let binder_heads = binders_in_heads(&cells, &ends, &alts);
        Ok(Template {
            ends,
            cells,
            root,
            nslots: self.slot_names.len() as u32,
            env_len,
            slot_names: self.slot_names,
            quantified: false,
            binder_heads,
            alts,
            keys,
            conjuncts,
            left_nested,
            takes,
            ahead,
            origin: None,
            goal_spans: self.goal_spans.into_boxed_slice(),
        })
    }

    /// Compile a goal or term (binders stay binder terms).
    pub fn goal(mut self, t: &Term) -> Result<Template, CompileError> {
        let env_len = self.slot_names.len() as u32;
        let root = self.term(t)?;
        Ok(Template {
            ends: block_ends(&self.cells),
            cells: self.cells,
            root,
            nslots: self.slot_names.len() as u32,
            env_len,
            slot_names: self.slot_names,
            quantified: false,
            alts: Vec::new(),
            keys: Vec::new(),
            binder_heads: false,
            conjuncts: Vec::new(),
            left_nested: Vec::new(),
            ahead: Box::default(),
            takes: Box::default(),
            origin: None,
            goal_spans: Box::default(),
        })
    }

    fn new_slot(&mut self, name: &str) -> u32 {
        let s = self.slot_names.len() as u32;
        self.slot_names.push(name.to_string());
        s
    }

    /// Compile in clause position: `forall x \ R` binds x to a fresh slot.
    fn clause_term(&mut self, t: &Term) -> Result<Cell, CompileError> {
        match &t.kind {
            TermKind::Binder(Quant::Forall, x, _, body) => {
                let s = self.new_slot(x);
                self.bound.push((x.clone(), Cell::Ref(Addr(s))));
                let r = self.clause_term(body);
                self.bound.pop();
                r
            }
            TermKind::App(head, args) if args.len() == 2 => {
                let op = match &head.kind {
                    TermKind::Name(n) => n.as_str(),
                    _ => return self.term(t),
                };
                // Which operands are clauses (the rest are goals).
                let (c0, c1) = match op {
                    "&" => (true, true),
                    ":-" | "<=" => (true, false),
                    "-o" | "=>" => (false, true),
                    _ => return self.term(t),
                };
                let f = self.symbols.intern(op);
                let a = self.reserve(f, 2);
                let x = if c0 {
                    self.clause_term(&args[0])?
                } else {
                    self.body_term(&args[0])?
                };
                self.cells[a + 1] = x;
                let y = if c1 {
                    self.clause_term(&args[1])?
                } else {
                    self.body_term(&args[1])?
                };
                self.cells[a + 2] = y;
                Ok(Cell::Struct(Addr(a as u32)))
            }
            _ => self.term(t),
        }
    }

    /// Compile a clause's body (a goal operand of `:-`, `-o` and the
    /// like), recording where each of its terms was written.
    fn body_term(&mut self, t: &Term) -> Result<Cell, CompileError> {
        let outer = std::mem::replace(&mut self.in_body, true);
        let r = self.term(t);
        self.in_body = outer;
        r
    }

    fn reserve(&mut self, f: SymId, n: u32) -> usize {
        let a = self.cells.len();
        self.cells.push(Cell::Functor(f, n));
        for _ in 0..n {
            self.cells.push(Cell::Atom(sym::NIL));
        }
        a
    }

    fn name_cell(&mut self, n: &str) -> Cell {
        if let Some((_, c)) = self.bound.iter().rev().find(|(b, _)| b == n) {
            return *c;
        }
        if let Some(&s) = self.locals.get(n) {
            return Cell::Atom(s);
        }
        Cell::Atom(self.symbols.intern(n))
    }

    /// Compile in term (goal) position.
    fn term(&mut self, t: &Term) -> Result<Cell, CompileError> {
        crate::util::deep(|| self.term_here(t))
    }

    /// [`Compiler::term`] on the stack as it is.
    fn term_here(&mut self, t: &Term) -> Result<Cell, CompileError> {
        Ok(match &t.kind {
            TermKind::Var(v) => {
                if let Some((_, c)) = self.bound.iter().rev().find(|(b, _)| b == v) {
                    *c
                } else if let Some(&s) = self.vars.get(v) {
                    Cell::Ref(Addr(s))
                } else {
                    let s = self.new_slot(v);
                    self.vars.insert(v.clone(), s);
                    Cell::Ref(Addr(s))
                }
            }
            TermKind::Wildcard => {
                let s = self.new_slot("_");
                Cell::Ref(Addr(s))
            }
            TermKind::Name(n) => {
                let c = self.name_cell(n);
                if let (true, Cell::Atom(_)) = (self.in_body, c) {
                    self.goal_spans.push((c, t.span.clone()));
                }
                c
            }
            TermKind::Int(i) => Cell::Int(*i),
            TermKind::Str(s) => Cell::Str(self.symbols.intern_str(s)),
            TermKind::App(head, args) => {
                let (f, extra) = match &head.kind {
                    TermKind::Name(n) => {
                        let c = self.name_cell(n);
                        match c {
                            Cell::Atom(f) => (f, None),
                            other => (sym::APPLY, Some(other)),
                        }
                    }
                    TermKind::Var(_) | TermKind::Wildcard => {
                        let h = self.term(head)?;
                        (sym::APPLY, Some(h))
                    }
                    _ => {
                        return Err(CompileError {
                            span: head.span.clone(),
                            message: "only a name or a variable can be applied to arguments".into(),
                        })
                    }
                };
                let n = args.len() as u32 + extra.is_some() as u32;
                let a = self.reserve(f, n);
                if self.in_body && extra.is_none() {
                    self.goal_spans
                        .push((Cell::Struct(Addr(a as u32)), t.span.clone()));
                }
                let mut i = a + 1;
                if let Some(h) = extra {
                    self.cells[i] = h;
                    i += 1;
                }
                for arg in args {
                    let c = self.term(arg)?;
                    self.cells[i] = c;
                    i += 1;
                }
                Cell::Struct(Addr(a as u32))
            }
            TermKind::Binder(q, x, _, body) => {
                let f = match q {
                    Quant::Forall => sym::FORALL,
                    Quant::Exists => sym::EXISTS,
                };
                let name = self.symbols.intern(x);
                let id = self.binder_names.len() as u32;
                self.binder_names.push(name);
                let a = self.reserve(f, 2);
                self.cells[a + 1] = Cell::Bound(id);
                self.bound.push((x.clone(), Cell::Bound(id)));
                let b = self.term(body);
                self.bound.pop();
                self.cells[a + 2] = b?;
                Cell::Struct(Addr(a as u32))
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `f (g a (h b)) (s (s z)) c` laid out as the compiler lays it out.
    #[test]
    fn block_ends_agree_with_walking_each_block() {
        let (f, g, h, s, a, b, c, z) = (
            SymId(100),
            SymId(101),
            SymId(102),
            SymId(103),
            SymId(104),
            SymId(105),
            SymId(106),
            SymId(107),
        );
        let st = |i: u32| Cell::Struct(Addr(i));
        let cells = vec![
            Cell::Functor(f, 3),
            st(4),
            st(9),
            Cell::Atom(c),
            Cell::Functor(g, 2),
            Cell::Atom(a),
            st(7),
            Cell::Functor(h, 1),
            Cell::Atom(b),
            Cell::Functor(s, 1),
            st(11),
            Cell::Functor(s, 1),
            Cell::Atom(z),
        ];
        let ends = block_ends(&cells);
        assert_eq!(ends, vec![13, 0, 0, 0, 9, 0, 0, 9, 0, 13, 0, 13, 0]);
        for (i, cell) in cells.iter().enumerate() {
            if let Cell::Functor(..) = cell {
                assert_eq!(
                    ends[i] as usize,
                    block_end(&cells, Addr(i as u32)),
                    "at {i}"
                );
            }
        }
    }
}
