//! Why a query had no answer, when the machine can tell cheaply and
//! exactly enough to say so: for a goal that is one call, whether no
//! clause or resource of its predicate has a head that could match it
//! (`jump 13` against `jump (s N)` and `jump z`).
//!
//! The test is structural and binds nothing: two terms are *compatible*
//! unless both are non-variable and differ in their principal symbol, or
//! are compounds with an incompatible pair of arguments.  Every pair of
//! unifiable terms is compatible, so "no head is compatible" implies "no
//! head unifies": the note it leads to is never wrong, only sometimes
//! missing (a head that fails on a repeated variable, say).  A template's
//! variables, its environment's parameters, variable applications, binder
//! terms and `forall` constants all count as compatible with anything.

#[allow(unused_imports)]
use super::*;
use crate::logic::template::Template;

/// A call that no head can match (see [`Machine::unmatched_call`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unmatched {
    /// The predicate's name, quoted where it must be, and its arity.
    pub name: String,
    pub arity: u32,
    /// The goal, printed.
    pub goal: String,
    /// How many clauses and how many linear resources the predicate has
    /// in the context.
    pub clauses: usize,
    pub resources: usize,
}

/// One side of a pair the compatibility test walks: a template's cell, or
/// a heap cell.
#[derive(Copy, Clone)]
enum Side {
    Template(Cell),
    Heap(Cell),
}

impl Machine {
    /// When the innermost query's goal is a single call of a predicate
    /// that has clauses or resources in the context, none of whose heads
    /// is compatible with it (see the module doc): the predicate's name
    /// and arity, the goal printed, and the number of those clauses and
    /// resources.  Called when the query has no answer, before it ends.
    pub fn unmatched_call(&self) -> Option<Unmatched> {
        let goal = self.store.heap.deref(*self.query_goals.last()?);
        let pred = match goal {
            Cell::Atom(f) => (f, 0),
            Cell::Struct(a) => match self.store.heap.get(a) {
                Cell::Functor(f, n) => (f, n),
                _ => return None,
            },
            _ => return None,
        };
        if self.builtin_of(pred.0, pred.1).is_some()
            || crate::builtins::is_connective(self.symbols.name(pred.0), pred.1)
            || pred.0 == crate::term::sym::APPLY
        {
            return None;
        }
        let mut cur = self.ctx.cursor(pred, &Default::default());
        let (mut clauses, mut resources) = (0, 0);
        while let Some(item) = self.ctx.next(&mut cur) {
            let entry = &self.ctx.entries[item.entry as usize];
            if !entry.linear && !self.ctx.usable(item.entry) {
                continue;
            }
            if entry.linear {
                resources += 1;
            } else {
                clauses += 1;
            }
            let compatible = match entry.source {
                Source::Template { tpl, .. } => {
                    let t = &self.templates[tpl as usize];
                    t.binder_heads
                        || self.compatible(
                            Some(t),
                            Side::Template(t.alts[item.alt as usize].head),
                            goal,
                        )
                }
                Source::Heap { alts, .. } => {
                    let head = self.ctx.heap_alts[(alts + item.alt) as usize].head;
                    self.compatible(None, Side::Heap(head), goal)
                }
            };
            if compatible {
                return None;
            }
        }
        (clauses + resources > 0).then(|| Unmatched {
            name: crate::pretty::quote_name(self.symbols.name(pred.0)),
            arity: pred.1,
            goal: self.show(goal),
            clauses,
            resources,
        })
    }

    /// Whether `head` (a cell of template `t`, or of the heap when `t` is
    /// `None`) and the heap term `goal` are compatible (see the module doc).
    fn compatible(&self, t: Option<&Template>, head: Side, goal: Cell) -> bool {
        let heap = &self.store.heap;
        let mut work = vec![(head, goal)];
        while let Some((h, g)) = work.pop() {
            let g = heap.deref(g);
            // The head's cell, and how to read the cells of a compound.
            let (hc, base): (Cell, Option<&[Cell]>) = match h {
                Side::Template(c) => (c, t.map(|t| &t.cells[..])),
                Side::Heap(c) => (heap.deref(c), None),
            };
            let symbol = |c: Cell, cells: Option<&[Cell]>| -> Option<(Cell, Option<Addr>)> {
                match c {
                    Cell::Atom(_) | Cell::Int(_) | Cell::Str(_) => Some((c, None)),
                    Cell::Struct(a) => {
                        let f = match cells {
                            Some(cells) => cells[a.ix()],
                            None => heap.get(a),
                        };
                        match f {
                            Cell::Functor(s, _) if s == crate::term::sym::APPLY => None,
                            Cell::Functor(..) => Some((f, Some(a))),
                            _ => None,
                        }
                    }
                    // Variables, slots, `forall` constants, bound names.
                    _ => None,
                }
            };
            let (Some((hs, ha)), Some((gs, ga))) = (symbol(hc, base), symbol(g, None)) else {
                continue;
            };
            if hs != gs {
                return false;
            }
            if let (Some(ha), Some(ga), Cell::Functor(_, n)) = (ha, ga, hs) {
                for i in 0..n {
                    let harg = match base {
                        Some(cells) => Side::Template(cells[ha.ix() + 1 + i as usize]),
                        None => Side::Heap(heap.arg(ha, i)),
                    };
                    work.push((harg, heap.arg(ga, i)));
                }
            }
        }
        true
    }
}
